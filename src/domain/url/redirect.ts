// Redirects as a pure decision; the fetcher does the I/O. The workflow registers a followed
// target as its own URL record (scope and robots are checked on the target, not only the
// source) and records the redirect as an edge.

import { canonicalizeUrl, type CanonicalizeOptions, type CanonicalUrl } from './canonicalize.js';
import { UrlRejectedError } from './errors.js';
import { urlFingerprint } from './fingerprint.js';
import { resolveLink } from './resolve.js';

/** Most redirects followed from one source (docs/design.md, "Crawler traps"): the 11th is a terminal failure. */
export const MAX_REDIRECT_HOPS = 10;

/** HTTP statuses whose Location is followed. */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

export interface RedirectInput {
  /** The raw Location header, possibly relative; undefined when the response had none. */
  location: string | undefined;
  /** Canonical URL of the response that redirected (the Location's base). */
  fromUrl: string;
  /** Fingerprints already visited in this chain, source first; the last is `fromUrl`'s. */
  chainFingerprints: readonly string[];
  /** Canonicalization options of the crawl (query policies, length limit). */
  options?: CanonicalizeOptions;
}

export type RedirectDecision =
  | { kind: 'follow'; target: CanonicalUrl; fingerprint: string }
  | { kind: 'loop'; fingerprint: string }
  | { kind: 'too-many-hops' }
  | { kind: 'invalid'; error: UrlRejectedError };

/**
 * What to do with a redirect: follow the canonical target, or stop with a terminal failure —
 * a loop (the target's fingerprint is already in the chain), a chain longer than
 * MAX_REDIRECT_HOPS, or a Location that is missing, not http(s), or rejected by
 * canonicalization (userinfo, bad host). A loop is reported even past the hop limit, because
 * it names the cause.
 */
export function decideRedirect(input: RedirectInput): RedirectDecision {
  const { location, fromUrl, chainFingerprints, options } = input;
  if (location === undefined || location.trim() === '') {
    return { kind: 'invalid', error: new UrlRejectedError('empty', '', 'redirect without a Location header') };
  }
  const resolved = resolveLink(location, fromUrl);
  if (!resolved.ok) return { kind: 'invalid', error: new UrlRejectedError(resolved.reason, location, resolved.detail) };
  let target: CanonicalUrl;
  try {
    target = canonicalizeUrl(resolved.url, options);
  } catch (error) {
    if (error instanceof UrlRejectedError) return { kind: 'invalid', error };
    throw error;
  }
  const fingerprint = urlFingerprint(target.url);
  if (chainFingerprints.includes(fingerprint)) return { kind: 'loop', fingerprint };
  // The chain holds the source plus one entry per hop taken; this redirect is hop number length.
  if (chainFingerprints.length > MAX_REDIRECT_HOPS) return { kind: 'too-many-hops' };
  return { kind: 'follow', target, fingerprint };
}
