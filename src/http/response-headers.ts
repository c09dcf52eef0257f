import type { IncomingHttpHeaders } from 'node:http';

/**
 * Response headers as one string per lower-case name, repeated headers joined with ', ' (RFC 9110
 * §5.3). Set-Cookie is dropped: the crawler keeps no cookies and its values cannot be joined.
 */
export function flattenResponseHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'set-cookie' || value === undefined) continue;
    const joined = Array.isArray(value) ? value.join(', ') : String(value);
    flat[lower] = lower in flat ? `${flat[lower]}, ${joined}` : joined;
  }
  return flat;
}
