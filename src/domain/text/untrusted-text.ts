// Text that came from outside (a response header, a seeds-file line, a workflow id in a history
// file) must not steer a terminal or split a log record when it is printed. Every message that
// quotes such text passes it through here first.

/** Characters quoted from untrusted text before the rest is cut: enough to recognise it, too few to flood a line. */
export const UNTRUSTED_TEXT_MAX_CHARS = 200;

export interface NeutralizeTextOptions {
  /** Characters (code points) of the input kept; the rest is replaced by a count of what was cut. Default UNTRUSTED_TEXT_MAX_CHARS (200). */
  maxChars?: number;
  /** Characters of the original text the caller dropped before passing it here: counted among those cut. Default 0. */
  droppedChars?: number;
}

/**
 * What a terminal or a line-based log reader acts on: C0 controls and DEL (escape sequences,
 * carriage return, line feed), C1 controls (U+0085 NEL and U+009B CSI among them), the Unicode
 * line and paragraph separators, and the bidirectional controls that reorder what a line shows.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** What a JSON text may still hold raw after JSON.stringify (which escapes C0 only). */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const SHORT_ESCAPES: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function escapeCharacter(ch: string): string {
  const short = SHORT_ESCAPES[ch];
  if (short !== undefined) return short;
  const code = ch.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Index just past the first `maxChars` code points of `text`, or text.length when it has no more. */
function endOfCodePoints(text: string, maxChars: number): number {
  let index = 0;
  for (let kept = 0; kept < maxChars && index < text.length; kept += 1) {
    const code = text.charCodeAt(index);
    index += code >= 0xd800 && code <= 0xdbff && index + 1 < text.length ? 2 : 1;
  }
  return index;
}

function countCodePoints(text: string, from: number): number {
  let count = 0;
  for (let index = from; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    // The low half of a pair is not a character of its own.
    if (code < 0xdc00 || code > 0xdfff || index === from || !isHighSurrogate(text.charCodeAt(index - 1))) count += 1;
  }
  return count;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * `text` made safe to print on a terminal or in a log line: every control character escaped
 * (`\n`, `\x1b`, `\u0085`, `\u2028`), and at most `maxChars` characters kept, followed by the
 * count of those cut (`… (20971320 more characters)`). Never throws.
 */
export function neutralizeText(text: string, options: NeutralizeTextOptions = {}): string {
  const maxChars = options.maxChars ?? UNTRUSTED_TEXT_MAX_CHARS;
  const end = endOfCodePoints(text, maxChars);
  const kept = text.slice(0, end).replace(UNSAFE, escapeCharacter);
  const cut = (end >= text.length ? 0 : countCodePoints(text, end)) + (options.droppedChars ?? 0);
  if (cut === 0) return kept;
  return `${kept}… (${cut} more character${cut === 1 ? '' : 's'})`;
}

/**
 * A JSON text with nothing a line-based reader takes for a line end or a terminal acts on:
 * JSON.stringify escapes C0 controls but leaves DEL, C1 controls (U+0085 is a line end to many
 * readers), U+2028/U+2029 and bidirectional controls raw. They can only stand inside strings, so
 * escaping them as `\uXXXX` gives the same JSON value. Lengths are the caller's business.
 */
export function escapeJsonLineBreakers(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** JSON.stringify(value, replacer) as one line that stays one line for every reader (escapeJsonLineBreakers). */
export function jsonLine(value: unknown, replacer?: (key: string, value: unknown) => unknown): string {
  return escapeJsonLineBreakers(JSON.stringify(value, replacer));
}
