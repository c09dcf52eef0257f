// Credentials must never reach the frontier, logs or metrics (docs/design.md, "URL identity"). Redaction is
// deliberately broader than URL parsing: it runs on untrusted text that may not parse at all.

/** Schemes whose authority WHATWG parsers find after any run of slashes, even none. */
const SPECIAL_SCHEMES = new Set(['http', 'https', 'ws', 'wss', 'ftp', 'file']);
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
const REDACTED = '***';
const MAX_LOGGED_CHARS = 300;

/** Where the userinfo (everything up to and including the last '@' of the authority) sits. */
export interface UserinfoSpan {
  /** Index of the first userinfo character in the view. */
  start: number;
  /** Index just past the '@' that ends the userinfo. */
  end: number;
}

/**
 * The text URL parsers actually see: tab, CR and LF are removed anywhere and C0 controls and
 * spaces trimmed at both ends (WHATWG URL "basic URL parser"), so `ht\ttps://u:p@h` is caught.
 */
export function parserView(input: string): string {
  // eslint-disable-next-line no-control-regex
  return input.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');
}

/**
 * The userinfo span of a URL as an HTTP client would parse it, or undefined when there is
 * none. Used to reject credentialed URLs before anything else looks at them.
 */
export function findUserinfo(view: string): UserinfoSpan | undefined {
  const scheme = SCHEME.exec(view);
  let cursor: number;
  if (scheme) {
    const name = (scheme[1] as string).toLowerCase();
    cursor = scheme[0].length;
    const slashes = countSlashes(view, cursor);
    if (!SPECIAL_SCHEMES.has(name) && slashes < 2) return undefined;
    cursor += slashes;
  } else {
    const slashes = countSlashes(view, 0);
    if (slashes < 2) return undefined;
    cursor = slashes;
  }
  return userinfoIn(view, cursor);
}

/**
 * `input` with any userinfo replaced by `***`, for logs and error messages. Never throws.
 * When the text has no parseable userinfo it is still redacted up to its last '@': a malformed
 * URL such as `https://user:pa/ss@host` may hold a password that no parser recognises, and an
 * over-redacted log line (`https://***@user/post`) is the cheaper mistake.
 */
export function redactUserinfo(input: string): string {
  const view = parserView(input);
  const span = findUserinfo(view) ?? anyUserinfoLike(view);
  return span ? `${view.slice(0, span.start)}${REDACTED}@${view.slice(span.end)}` : view;
}

/**
 * A redacted, log-safe rendering of untrusted input: no userinfo, control characters
 * percent-encoded (no log injection), at most 300 characters.
 */
export function loggableUrl(input: string): string {
  // eslint-disable-next-line no-control-regex
  const safe = redactUserinfo(input).replace(/[\u0000-\u001f\u007f-\u009f]/g, (ch) => {
    return `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
  });
  return safe.length > MAX_LOGGED_CHARS ? `${safe.slice(0, MAX_LOGGED_CHARS)}…` : safe;
}

function anyUserinfoLike(view: string): UserinfoSpan | undefined {
  const at = view.lastIndexOf('@');
  if (at < 0) return undefined;
  const scheme = SCHEME.exec(view);
  const afterScheme = scheme ? scheme[0].length + countSlashes(view, scheme[0].length) : countSlashes(view, 0);
  // `mailto:alice@x` or `alice:secret@x`: without an authority the scheme itself may be the user.
  const start = afterScheme > at || (scheme && afterScheme === scheme[0].length) ? 0 : afterScheme;
  return { start, end: at + 1 };
}

function countSlashes(text: string, from: number): number {
  let i = from;
  while (i < text.length && (text[i] === '/' || text[i] === '\\')) i++;
  return i - from;
}

function userinfoIn(view: string, authorityStart: number): UserinfoSpan | undefined {
  let end = authorityStart;
  while (end < view.length && !'/\\?#'.includes(view[end] as string)) end++;
  const at = view.lastIndexOf('@', end - 1);
  return at >= authorityStart ? { start: authorityStart, end: at + 1 } : undefined;
}

/** Query or conninfo parameters whose value is a secret: password, sslpassword, X-Amz-Signature, ... */
const SECRET_PARAMETER = /(^|[?&;\s])([^\s=&?#;]*(?:pass|pwd|secret|token|signature)[^\s=&?#;]*)=('[^']*'|"[^"]*"|[^&#;\s]*)/gi;

/**
 * A connection string or URL (postgres://, http://, or libpq `key=value` conninfo) with every
 * password replaced by `***`, for status output and error messages; the user name, host, port
 * and other parameters stay readable. Never throws, and fails safe: the userinfo password runs
 * from the first ':' after `//` to the last '@' of the whole text, so a password holding '@',
 * ':', '/', '?', '#' or '%' is hidden whole; a secret query or conninfo parameter (`password=`,
 * `sslpassword=`, `...token=`, `...signature=`) loses its value. Where the two readings overlap
 * the union is hidden: too much hidden is the cheaper mistake.
 */
export function redactCredentials(text: string): string {
  const hidden: Array<[number, number]> = [];
  const scheme = SCHEME.exec(text);
  const afterScheme = scheme ? scheme[0].length : 0;
  const slashes = countSlashes(text, afterScheme);
  const authorityStart = slashes >= 2 ? afterScheme + slashes : 0;
  const at = text.lastIndexOf('@');
  const colon = text.indexOf(':', authorityStart);
  if (at >= authorityStart && colon !== -1 && colon < at) hidden.push([colon + 1, at]);
  for (const match of text.matchAll(SECRET_PARAMETER)) {
    const valueStart = (match.index ?? 0) + (match[1] as string).length + (match[2] as string).length + 1;
    hidden.push([valueStart, valueStart + (match[3] as string).length]);
  }
  if (hidden.length === 0) return text;
  hidden.sort((a, b) => a[0] - b[0]);
  let out = '';
  let cursor = 0;
  let i = 0;
  while (i < hidden.length) {
    const [start] = hidden[i] as [number, number];
    let end = (hidden[i] as [number, number])[1];
    for (i++; i < hidden.length && (hidden[i] as [number, number])[0] <= end; i++) end = Math.max(end, (hidden[i] as [number, number])[1]);
    out += `${text.slice(cursor, start)}${REDACTED}`;
    cursor = end;
  }
  return out + text.slice(cursor);
}
