/**
 * Where a stored body lives, as one string (a body key): the records, the workflows and the
 * export pass it around without knowing the layout.
 *
 * - `bodies/sha256/ab/<hash>.gz`: a body stored as an object of its own, gzipped, named by the
 *   SHA-256 of its decoded bytes (large bodies, and every body stored before packs).
 * - `packs/<yyyy>/<mm>/<dd>/<hhmmss>-<id>.gz#bytes=<first>-<last>`: a body inside a pack, one
 *   object holding many bodies as consecutive gzip members; the fragment names the member's
 *   bytes (first and last inclusive, as in an HTTP Range). `zcat` of a pack prints every body.
 */

const STANDALONE_KEY = /^bodies\/sha256\/[0-9a-f]{2}\/([0-9a-f]{64})\.gz$/;
const PACK_KEY = /^packs\/\d{4}\/\d{2}\/\d{2}\/\d{6}-[0-9a-f]{16}\.gz$/;
const PACKED_BODY_KEY = /^(packs\/[^#]+)#bytes=(\d+)-(\d+)$/;

/** Prefix of every standalone body object. */
export const STANDALONE_BODY_PREFIX = 'bodies/sha256/';
/** Prefix of every pack object. */
export const PACK_PREFIX = 'packs/';

/** A body key, read: the object to read, and the bytes of it that are the body (all of it when absent). */
export interface BodyLocation {
  objectKey: string;
  range?: { offset: number; length: number };
}

/** Content-addressed key of a standalone body: one object per distinct decoded body, whoever fetched it. */
export function bodyKeyFor(sha256Hex: string): string {
  if (!/^[0-9a-f]{64}$/.test(sha256Hex)) throw new Error(`not a SHA-256 hex digest: ${sha256Hex}`);
  return `${STANDALONE_BODY_PREFIX}${sha256Hex.slice(0, 2)}/${sha256Hex}.gz`;
}

/** The SHA-256 a standalone key names, or undefined for any other key (never ours to delete as a body). */
export function sha256OfStandaloneKey(key: string): string | undefined {
  return STANDALONE_KEY.exec(key)?.[1];
}

/**
 * A new pack's object key: dated (an operator can list a day's packs) and made unique by
 * `randomHex` (16 hex digits), so packs from several workers never collide.
 */
export function packKeyAt(at: Date, randomHex: string): string {
  if (!/^[0-9a-f]{16}$/.test(randomHex)) throw new Error(`a pack id is 16 hex digits, got '${randomHex}'`);
  const pad = (value: number): string => String(value).padStart(2, '0');
  const day = `${at.getUTCFullYear()}/${pad(at.getUTCMonth() + 1)}/${pad(at.getUTCDate())}`;
  const time = `${pad(at.getUTCHours())}${pad(at.getUTCMinutes())}${pad(at.getUTCSeconds())}`;
  return `${PACK_PREFIX}${day}/${time}-${randomHex}.gz`;
}

export function isPackKey(key: string): boolean {
  return PACK_KEY.test(key);
}

/** The key of the body stored at `offset` (bytes) in pack `packKey`, `length` bytes long. */
export function packedBodyKey(packKey: string, offset: number, length: number): string {
  if (!isPackKey(packKey)) throw new Error(`not a pack key: '${packKey}'`);
  if (!Number.isSafeInteger(offset) || offset < 0) throw new Error(`a packed body's offset is a whole number of bytes >= 0, got ${offset}`);
  if (!Number.isSafeInteger(length) || length < 1) throw new Error(`a packed body's length is a whole number of bytes >= 1, got ${length}`);
  return `${packKey}#bytes=${offset}-${offset + length - 1}`;
}

/** The pack a packed body key points into, or undefined for a standalone key. */
export function packKeyOf(bodyKey: string): string | undefined {
  const match = PACKED_BODY_KEY.exec(bodyKey);
  return match && isPackKey(match[1]!) ? match[1]! : undefined;
}

/**
 * Reads a body key: a packed body's pack and bytes, or else the whole object the key names (a
 * standalone body, or a key written before packs, which is read as it always was).
 */
export function bodyLocationOf(bodyKey: string): BodyLocation {
  const packed = PACKED_BODY_KEY.exec(bodyKey);
  if (packed && isPackKey(packed[1]!)) {
    const first = Number(packed[2]);
    const last = Number(packed[3]);
    if (!Number.isSafeInteger(first) || !Number.isSafeInteger(last) || last < first) {
      throw new Error(`'${bodyKey}' names an empty or impossible byte range; a packed body key ends #bytes=<first>-<last> with last >= first`);
    }
    return { objectKey: packed[1]!, range: { offset: first, length: last - first + 1 } };
  }
  return { objectKey: bodyKey };
}
