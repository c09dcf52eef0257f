import { normalizeTextForHash } from '../content/index.js';
import { sha256Hex } from '../hash/index.js';
import { changeKey } from './change-evidence.js';
import { RecrawlInputError } from './errors.js';

/** Hex characters of the field-set hash in a field scheme: 48 bits, so two configurations never meet in practice. */
const FIELD_SET_HASH_CHARS = 12;

/**
 * The scheme of change keys computed from configured fields: `f<parser version>-<hash>`, where the
 * hash names the field set (names and selectors, in name order). Keys of different schemes are not
 * compared (observeVisit), so a crawl whose fields were added, removed or re-selected starts a new
 * baseline instead of reporting a change the page never made. The parser version is part of it for
 * the reason it is part of `n1`: extraction decides what the text is.
 */
export function fieldSetScheme(parserVersion: number, selectors: Readonly<Record<string, string>>): string {
  if (!Number.isSafeInteger(parserVersion) || parserVersion < 1) {
    throw new RecrawlInputError('RECRAWL_OBSERVATION_INVALID', 'parserVersion', parserVersion, 'pass the parser version, an integer >= 1');
  }
  return `f${parserVersion}-${sha256Hex(JSON.stringify(sortedEntries(selectors))).slice(0, FIELD_SET_HASH_CHARS)}`;
}

/**
 * SHA-256 (hex) of each field's text after normalizeTextForHash, so a date or token inside a field
 * is masked exactly as in the main text. The same for any key order. Null when every field's
 * normalized text is empty: the page has none of the fields.
 */
export function fieldValuesDigest(values: Readonly<Record<string, string>>): string | null {
  const normalized = sortedEntries(values).map(([name, text]) => [name, normalizeTextForHash(text)] as const);
  if (normalized.every(([, text]) => text === '')) return null;
  // JSON keeps names and texts apart: no separator inside a text can make two field sets hash alike.
  return sha256Hex(JSON.stringify(normalized));
}

/** What a parsed page contributes to its change key. */
export interface PageChangeKeyInput {
  parserVersion: number;
  /** SHA-256 (hex) of the normalized main text. */
  normalizedHash: string;
  /** The crawl's configured fields, name to CSS selector; none or {} for the main text only. */
  changeFields?: Readonly<Record<string, string>>;
  /** Each configured field's extracted text; a missing name counts as empty. */
  fieldValues?: Readonly<Record<string, string>>;
}

/**
 * The change key of a parsed page (docs/design.md, "Change model": a change is a change in the normalized content, or in
 * configured extracted fields). Without configured fields it is the main text's key, `n<parser
 * version>:<normalizedHash>`, as it has always been. With fields, it is the fields' digest under
 * the field set's scheme, or, on a page where none of the fields has any text (a category page in
 * a price monitor), a digest of the main text under that same scheme: such a page still shows its
 * changes, and a product page that loses its price is a change, not a new baseline.
 */
export function pageChangeKey(input: PageChangeKeyInput): string {
  const selectors = input.changeFields ?? {};
  const names = Object.keys(selectors);
  if (names.length === 0) return changeKey(`n${input.parserVersion}`, input.normalizedHash);
  const values = Object.fromEntries(names.map((name) => [name, input.fieldValues?.[name] ?? '']));
  const digest = fieldValuesDigest(values) ?? sha256Hex(JSON.stringify(['main-text', input.normalizedHash]));
  return changeKey(fieldSetScheme(input.parserVersion, selectors), digest);
}

/** Entries in code-unit order of their names: the same on every host, unlike localeCompare. */
function sortedEntries(record: Readonly<Record<string, string>>): [string, string][] {
  return Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
