// Turning body bytes into text the way browsers do (WHATWG Encoding and the HTML "prescan"), so
// that the parser sees the same characters a reader would: BOM, then the Content-Type charset,
// then <meta> in the first 1024 bytes, then UTF-8.

export type CharsetSource = 'bom' | 'header' | 'meta' | 'default';

export interface DecodedText {
  text: string;
  /** The WHATWG encoding name actually used, e.g. 'utf-8', 'windows-1252', 'euc-kr', 'shift_jis'. */
  charset: string;
  source: CharsetSource;
  /** Set when a declared label was unknown and ignored, saying which and where. */
  note?: string;
}

/** How far into the body the HTML spec looks for a <meta> charset declaration. */
const META_PRESCAN_BYTES = 1024;

const BOMS: ReadonlyArray<readonly [readonly number[], string]> = [
  [[0xef, 0xbb, 0xbf], 'utf-8'],
  [[0xfe, 0xff], 'utf-16be'],
  [[0xff, 0xfe], 'utf-16le'],
];

/**
 * Decodes `bytes` choosing the charset in the browsers' order: byte-order mark, the charset
 * parameter of `contentTypeHeader`, a `<meta charset>` or `<meta http-equiv=Content-Type>` in the
 * first 1024 bytes, else UTF-8. Labels resolve through TextDecoder, so 'iso-8859-1', 'latin1'
 * and 'ascii' become windows-1252 as in browsers. Unknown labels are skipped with a `note`.
 * Malformed sequences become U+FFFD; this never throws on content.
 */
export function decodeCharset(bytes: Uint8Array, contentTypeHeader: string | undefined): DecodedText {
  const notes: string[] = [];
  const withNote = (decoded: DecodedText): DecodedText => (notes.length > 0 ? { ...decoded, note: notes.join('; ') } : decoded);

  for (const [mark, charset] of BOMS) {
    if (mark.every((byte, index) => bytes[index] === byte)) {
      // TextDecoder drops a BOM that matches its own encoding.
      return withNote({ text: decode(bytes, charset), charset, source: 'bom' });
    }
  }

  const headerLabel = contentTypeHeader === undefined ? undefined : charsetParameterOf(contentTypeHeader);
  if (headerLabel !== undefined) {
    const charset = encodingForLabel(headerLabel);
    if (charset !== undefined) return withNote({ text: decode(bytes, charset), charset, source: 'header' });
    notes.push(`unknown charset "${headerLabel}" in Content-Type ignored`);
  }

  for (const label of metaCharsetLabels(bytes.subarray(0, META_PRESCAN_BYTES))) {
    let charset = label.toLowerCase() === 'x-user-defined' ? 'windows-1252' : encodingForLabel(label);
    if (charset === undefined) {
      notes.push(`unknown charset "${label}" in <meta> ignored`);
      continue;
    }
    // A document that could be read as ASCII to find this <meta> cannot really be UTF-16.
    if (charset === 'utf-16le' || charset === 'utf-16be') charset = 'utf-8';
    return withNote({ text: decode(bytes, charset), charset, source: 'meta' });
  }

  return withNote({ text: decode(bytes, 'utf-8'), charset: 'utf-8', source: 'default' });
}

function decode(bytes: Uint8Array, charset: string): string {
  return charset === 'windows-1252' ? decodeWindows1252(bytes) : new TextDecoder(charset).decode(bytes);
}

/**
 * WHATWG index-windows-1252 for bytes 0x80..0x9F; every other byte is its own code point. Node
 * since 20.18.3 decodes 'windows-1252' as ISO-8859-1 (nodejs/node#60888), turning € and curly
 * quotes into C1 controls, and windows-1252 is what every latin1/ascii label means on the web.
 */
const WINDOWS_1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

export function decodeWindows1252(bytes: Uint8Array): string {
  const parts: string[] = [];
  const slice = 8192;
  for (let start = 0; start < bytes.length; start += slice) {
    const units = Array.from(bytes.subarray(start, start + slice), (byte) => (byte >= 0x80 && byte <= 0x9f ? (WINDOWS_1252_HIGH[byte - 0x80] as number) : byte));
    parts.push(String.fromCharCode(...units));
  }
  return parts.join('');
}

/** The WHATWG encoding name for a label, or undefined when TextDecoder does not know it. */
function encodingForLabel(label: string): string | undefined {
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    return undefined;
  }
}

/** The charset parameter of a Content-Type value, unquoted; undefined if absent or empty. */
export function charsetParameterOf(contentType: string): string | undefined {
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType);
  const value = (match?.[1] ?? match?.[2] ?? '').trim();
  return value === '' ? undefined : value;
}

/** Charset labels declared by <meta> elements, in document order, skipping comments. */
function metaCharsetLabels(head: Uint8Array): string[] {
  // Latin-1 maps each byte to one char, so ASCII markup is found in any ASCII-compatible encoding.
  const text = Array.from(head, (byte) => String.fromCharCode(byte)).join('');
  const labels: string[] = [];
  let index = 0;
  while (index < text.length) {
    if (text.startsWith('<!--', index)) {
      const close = text.indexOf('-->', index + 4);
      if (close === -1) break;
      index = close + 3;
      continue;
    }
    if (/^<meta[\s/]/i.test(text.slice(index, index + 6))) {
      const close = text.indexOf('>', index);
      const tag = text.slice(index + 5, close === -1 ? text.length : close);
      const label = charsetOfMetaAttributes(attributesOf(tag));
      if (label !== undefined) labels.push(label);
      if (close === -1) break;
      index = close + 1;
      continue;
    }
    index += 1;
  }
  return labels;
}

function attributesOf(tag: string): Map<string, string> {
  const attributes = new Map<string, string>();
  const pattern = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g;
  for (const match of tag.matchAll(pattern)) {
    const name = (match[1] ?? '').toLowerCase();
    // The first occurrence of an attribute wins, as in the HTML tokenizer.
    if (!attributes.has(name)) attributes.set(name, match[2] ?? match[3] ?? match[4] ?? '');
  }
  return attributes;
}

function charsetOfMetaAttributes(attributes: Map<string, string>): string | undefined {
  const charset = attributes.get('charset')?.trim();
  if (charset) return charset;
  if (attributes.get('http-equiv')?.trim().toLowerCase() !== 'content-type') return undefined;
  const content = attributes.get('content');
  if (content === undefined) return undefined;
  // "charset" anywhere in the content value, then "=", then a quoted or bare value.
  const match = /charset\s*=\s*(?:"([^"]*)"|'([^']*)'|([^;\s"']+))/i.exec(content);
  const value = (match?.[1] ?? match?.[2] ?? match?.[3] ?? '').trim();
  return value === '' ? undefined : value;
}
