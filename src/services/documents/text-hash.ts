/**
 * SHA-256 of a page's normalized text, the normalized hash and the change key's input (docs/design.md, "Content identity").
 * node:crypto, not the domain's pure sha256Hex, which costs 30 times as much per page: the parse
 * is a service and may use Node. Same digest: a string is hashed as its UTF-8 bytes, and Node, like
 * the domain's encoder, writes a lone surrogate as U+FFFD (test/unit/text-hash.test.ts).
 */
import { createHash } from 'node:crypto';

/** 64 lowercase hex characters. */
export function sha256HexOfText(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
