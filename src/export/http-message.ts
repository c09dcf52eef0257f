/**
 * The HTTP messages inside response, revisit and request records, rebuilt from a fetch record.
 * The body store keeps the decoded body, so the response head is adjusted to describe the bytes
 * that follow it: Content-Encoding and Transfer-Encoding are dropped and Content-Length is the
 * decoded length. Everything else is the headers the fetch record kept, as received.
 */
import { STATUS_CODES } from 'node:http';

export type HeaderList = Array<readonly [name: string, value: string]>;

/** Headers whose framing the stored (decoded, whole) body no longer has. */
const FRAMING_HEADERS = new Set(['content-encoding', 'transfer-encoding', 'content-length']);

/** Spellings the usual capitalisation gets wrong. */
const SPECIAL_CASE: Record<string, string> = { etag: 'ETag', 'x-robots-tag': 'X-Robots-Tag', 'www-authenticate': 'WWW-Authenticate', te: 'TE' };

/** `content-type` → `Content-Type`; HTTP names are case-insensitive, this is for readers. */
export function headerDisplayName(name: string): string {
  const lower = name.toLowerCase();
  return SPECIAL_CASE[lower] ?? lower.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());
}

/**
 * The response head for a stored body of `payloadBytes` (undefined: a head without a payload,
 * as in a 304, whose headers are kept as they came). Names are sorted for stable output: the
 * fetch record keeps a set of headers, not their order on the wire.
 */
export function responseHead(status: number, storedHeaders: Readonly<Record<string, string>>, payloadBytes: number | undefined): Buffer {
  const headers: HeaderList = [];
  for (const name of Object.keys(storedHeaders).sort()) {
    const lower = name.toLowerCase();
    if (payloadBytes !== undefined && FRAMING_HEADERS.has(lower)) continue;
    if (lower === 'transfer-encoding') continue;
    headers.push([headerDisplayName(lower), storedHeaders[name]!]);
  }
  if (payloadBytes !== undefined) headers.push(['Content-Length', String(payloadBytes)]);
  return head(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Unknown'}`, headers);
}

/**
 * The request head exactly as the HTTP layer sent it: GET, the path and query of `url`, Host
 * (what undici writes from the URL), then the recorded headers. undici's own Connection header
 * depends on the socket's state and is not recorded, so it is not claimed here.
 */
export function requestHead(url: string, sentHeaders: Readonly<Record<string, string>>): Buffer {
  const parsed = new URL(url);
  const headers: HeaderList = [['Host', parsed.host]];
  for (const [name, value] of Object.entries(sentHeaders)) {
    if (name.toLowerCase() === 'host') continue;
    headers.push([headerDisplayName(name), value]);
  }
  return head(`GET ${parsed.pathname}${parsed.search} HTTP/1.1`, headers);
}

function head(startLine: string, headers: HeaderList): Buffer {
  let text = `${startLine}\r\n`;
  for (const [name, value] of headers) {
    // Stored values came from parsed headers; one with a line break would forge a header, so it is left out.
    if (/[\r\n\0]/.test(name) || /[\r\n\0]/.test(value)) continue;
    text += `${name}: ${value}\r\n`;
  }
  // Header values are latin1 octets on the wire (RFC 9110 §5.5); utf8 here would change their length.
  return Buffer.from(`${text}\r\n`, 'latin1');
}
