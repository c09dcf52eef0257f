import { bytesToHex, sha256Bytes } from '../hash/sha256.js';

/** Hex characters in a URL fingerprint (128 bits). */
export const URL_FINGERPRINT_HEX_LENGTH = 32;

/**
 * The URL's identity key (docs/design.md, "URL identity"): the first 16 bytes of SHA-256 over the UTF-8
 * canonical URL, as 32 lowercase hex characters. 128 bits keeps the birthday-bound collision
 * chance near 1.5e-21 at a billion URLs. Pure TypeScript, so every process and Node version
 * computes the same key; store CANONICALIZATION_VERSION beside it.
 * @param canonicalUrl `CanonicalUrl.url`, never a raw link.
 */
export function urlFingerprint(canonicalUrl: string): string {
  return bytesToHex(sha256Bytes(canonicalUrl).subarray(0, 16));
}

/** True for a well-formed fingerprint string (32 lowercase hex characters). */
export function isUrlFingerprint(value: string): boolean {
  return /^[0-9a-f]{32}$/.test(value);
}
