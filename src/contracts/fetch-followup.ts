/**
 * What follows a fetch: the parse's input for a body to parse, or the settlement of a URL that
 * needs neither a parse nor a retry. Used by the host workflow and by a fetch burst that finishes
 * its own URLs: one mapping, so both do the same.
 */
import { isReadAsSitemap, type FetchUrlResult, type HostWorkItem, type ParseDocumentInput, type SettleOutcome } from './activities.js';

export type FetchedResult = Extract<FetchUrlResult, { kind: 'fetched' }>;

export function parseInputOf(item: HostWorkItem, fetched: FetchedResult): ParseDocumentInput {
  return {
    crawlId: item.crawlId,
    fingerprint: item.fingerprint,
    generation: item.generation,
    url: item.url,
    finalUrl: fetched.finalUrl,
    depth: item.depth,
    bodyKey: fetched.bodyKey,
    contentType: fetched.contentType,
    fetchedAtMs: fetched.startedAtMs,
    ...(fetched.xRobotsTag === undefined ? {} : { xRobotsTag: fetched.xRobotsTag }),
    ...(fetched.linkCanonical === undefined ? {} : { linkCanonical: fetched.linkCanonical }),
    // An activity's input is not part of replay's command matching: adding it keeps old histories valid.
    ...(isReadAsSitemap(item.purpose) ? { purpose: item.purpose } : {}),
  };
}

/** How a URL settles after a result that ends it without a parse or a retry; undefined for any other result. */
export function plainSettlementOf(result: FetchUrlResult): SettleOutcome | undefined {
  switch (result.kind) {
    case 'fetched':
      return result.parse ? undefined : { kind: 'fetched-unparsed' };
    case 'not-modified':
      return { kind: 'not-modified' };
    case 'redirect':
      return { kind: 'redirect' };
    case 'robots-disallowed':
      return { kind: 'robots-disallowed' };
    case 'robots-stale':
    case 'skipped':
      return undefined;
  }
}
