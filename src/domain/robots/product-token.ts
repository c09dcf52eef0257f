import { RobotsError } from './errors.js';

// RFC 9309 §2.2.1: a product token is letters, `_` and `-`. We also accept digits, because real
// crawlers use them (`MJ12bot`) and cutting a token at its first digit would make such a group
// apply to a different crawler. Anything after the token (`/1.0`, a comment) is not part of it.
const TOKEN = /^[A-Za-z0-9_-]+/;
// Browser-style strings name the crawler inside the comment: RFC 9309 Figure 1 pairs
// `Mozilla/5.0 (compatible; ExampleBot/0.1; ...)` with `user-agent: ExampleBot`.
const COMPATIBLE = /^Mozilla\/[^(]*\(\s*compatible\s*;\s*([A-Za-z0-9_-]+)/i;

/**
 * The product token of a User-Agent string: the name before the version,
 * `'DurableCrawler/0.1 (+https://example.invalid/bot)'` → `'DurableCrawler'`; for a
 * `Mozilla/5.0 (compatible; Name/1.0; ...)` string, the name after `compatible;`.
 *
 * @throws RobotsError `ROBOTS_PRODUCT_TOKEN_INVALID` when the string does not start with a token;
 *   configure a User-Agent that begins with the crawler's name.
 */
export function productTokenOf(userAgent: string): string {
  const trimmed = userAgent.trim();
  const token = COMPATIBLE.exec(trimmed)?.[1] ?? TOKEN.exec(trimmed)?.[0];
  if (token === undefined) {
    throw new RobotsError(
      'ROBOTS_PRODUCT_TOKEN_INVALID',
      'userAgent',
      userAgent,
      "start the User-Agent with a product token of letters, digits, '_' or '-', e.g. 'DurableCrawler/0.1 (+https://example.org/bot)'",
    );
  }
  return token;
}

/**
 * The key a group is filed under and looked up by: the lowercased token, `'*'` for the wildcard
 * (a lone `*`, possibly followed by whitespace), or `''` when the value holds no token.
 * A full User-Agent string reduces to its token too, so passing one by mistake still matches.
 */
export function productTokenKey(value: string): string {
  const trimmed = value.trim();
  if (trimmed === '*' || /^\*\s/.test(trimmed)) return '*';
  return (COMPATIBLE.exec(trimmed)?.[1] ?? TOKEN.exec(trimmed)?.[0] ?? '').toLowerCase();
}
