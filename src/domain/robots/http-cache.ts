// Just enough of HTTP caching (RFC 9111) to decide how long a robots.txt response may be reused.

/** The response headers that decide caching and revalidation, as the fetcher read them. */
export interface RobotsResponseHeaders {
  /** `Cache-Control` value, e.g. `max-age=3600`. */
  cacheControl?: string;
  /** `Expires` value, an HTTP-date. */
  expires?: string;
  /** `ETag` value, sent back as `If-None-Match` on the next refresh. */
  etag?: string;
  /** `Last-Modified` value, sent back as `If-Modified-Since` on the next refresh. */
  lastModified?: string;
}

/**
 * Freshness lifetime the response asks for, in milliseconds, or `undefined` when it says nothing.
 * `no-store`, `no-cache`, `max-age=0`, an invalid `max-age` and an invalid or past `Expires` all
 * give 0 (RFC 9111 §4.2.1: invalid freshness information means stale). `max-age` beats `Expires`;
 * of several `max-age` values the smallest counts. `Expires` is measured from `nowMs`, the
 * time the response arrived, since we do not keep the `Date` header.
 */
export function requestedLifetimeMs(headers: RobotsResponseHeaders | undefined, nowMs: number): number | undefined {
  const cacheControl = headers?.cacheControl;
  if (cacheControl !== undefined && cacheControl.trim() !== '') {
    let maxAgeMs: number | undefined;
    for (const part of cacheControl.split(',')) {
      const [rawName, ...rest] = part.split('=');
      const name = (rawName ?? '').trim().toLowerCase();
      const argument = rest.join('=').trim().replace(/^"(.*)"$/, '$1');
      // `no-cache="Set-Cookie"` only restricts the named fields, not reuse of the body.
      if (name === 'no-store' || (name === 'no-cache' && argument === '')) return 0;
      if (name === 'max-age') {
        const ms = /^\d+$/.test(argument) ? Number(argument) * 1000 : 0;
        maxAgeMs = Math.min(maxAgeMs ?? ms, ms);
      }
    }
    if (maxAgeMs !== undefined) return maxAgeMs;
  }
  const expires = headers?.expires;
  if (expires === undefined || expires.trim() === '') return undefined;
  const expiresAtMs = parseHttpDateMs(expires);
  return expiresAtMs === undefined ? 0 : Math.max(0, expiresAtMs - nowMs);
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * Parses an HTTP-date (RFC 9110 §5.6.7) in any of its three forms to epoch milliseconds;
 * `undefined` when it is none of them.
 */
export function parseHttpDateMs(value: string): number | undefined {
  const text = value.trim();
  // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
  let m = /^[A-Za-z]{3}, (\d{2}) ([A-Za-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/.exec(text);
  if (m !== null) return utc(Number(m[3]), m[2], m[1], m[4], m[5], m[6]);
  // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT (two-digit years within 50 years, RFC 9110 §5.6.7)
  m = /^[A-Za-z]+, (\d{2})-([A-Za-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/.exec(text);
  if (m !== null) {
    const yy = Number(m[3]);
    return utc(yy < 70 ? 2000 + yy : 1900 + yy, m[2], m[1], m[4], m[5], m[6]);
  }
  // asctime: Sun Nov  6 08:49:37 1994
  m = /^[A-Za-z]{3} ([A-Za-z]{3}) {1,2}(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/.exec(text);
  if (m !== null) return utc(Number(m[6]), m[1], m[2], m[3], m[4], m[5]);
  return undefined;
}

function utc(year: number, monthName = '', day = '', hour = '', minute = '', second = ''): number | undefined {
  const month = MONTHS.indexOf(monthName.toLowerCase());
  const [d, h, mi, s] = [Number(day), Number(hour), Number(minute), Number(second)];
  if (month < 0 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return undefined;
  const ms = Date.UTC(year, month, d, h, mi, Math.min(s, 59));
  // Date.UTC rolls 31 Feb over into March; a date that does not round-trip is invalid.
  return new Date(ms).getUTCDate() === d ? ms : undefined;
}
