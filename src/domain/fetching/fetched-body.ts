/** Which response headers a fetch record keeps, what a body is parsed as, and where its records are written. */

/** Response headers kept with the fetch record (docs/design.md, "Storage model": selected headers). */
export const KEPT_HEADERS: readonly string[] = Object.freeze([
  'link',
  'content-type',
  'content-length',
  'content-encoding',
  'etag',
  'last-modified',
  'cache-control',
  'expires',
  'location',
  'retry-after',
  'x-robots-tag',
  'content-language',
  'server',
  'date',
]);

/** A kept header's value is cut at this many characters: a header is untrusted input. */
export const KEPT_HEADER_MAX_CHARS = 1000;

export function keptHeadersOf(headers: Readonly<Record<string, string>>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = headers[name];
    if (value !== undefined) kept[name] = value.slice(0, KEPT_HEADER_MAX_CHARS);
  }
  return kept;
}

/** A page is parsed when it is HTML; a response without a content type is taken for HTML. */
export function isHtmlContentType(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'text/html' || type === 'application/xhtml+xml' || type === '';
}

/** A sitemap or feed is always read (the reader judges its body); a page, when it is HTML. */
export function isParsedBody(readAsSitemap: boolean, contentType: string | undefined): boolean {
  return readAsSitemap || isHtmlContentType(contentType);
}

export interface BodyRecordingInput {
  /** The body is parsed (isParsedBody). */
  parse: boolean;
  /** The caller (a fetch burst) writes a parsed page's records in its parse's transaction. */
  callerDefers: boolean;
  /** This fetch uploaded the object (false: it was found stored, a recrawl's unchanged body). */
  created: boolean;
  /** The caller holds the decoded body in memory for its parse. */
  held: boolean;
  /** The body was spooled in memory (false: to a file, a large body). */
  inMemory: boolean;
}

/**
 * Where a stored body's records are written, and whether the object is checked after they commit.
 * - `defer`: handed to the caller's parse (a burst's page this fetch uploaded).
 * - `defer-keeping`: handed over with the check, run once they commit (a burst's page found stored,
 *   held in memory: parsed from memory, so its object need only exist after the commit).
 * - `record`: written here alone; the parse records the page's visit.
 * - `record-with-visit`: written here with the visit (nothing parses this body: its bytes are its content).
 * `keepsStored`: a body found stored may have been pruned before our reference committed; it must
 * exist once that reference has (body-retention.ts).
 */
export function bodyRecordingOf(input: BodyRecordingInput): { where: 'defer' | 'defer-keeping' | 'record' | 'record-with-visit'; keepsStored: boolean } {
  if (input.parse && input.callerDefers && input.created) return { where: 'defer', keepsStored: false };
  if (input.parse && input.callerDefers && input.held && input.inMemory) return { where: 'defer-keeping', keepsStored: false };
  return { where: input.parse ? 'record' : 'record-with-visit', keepsStored: !input.created };
}
