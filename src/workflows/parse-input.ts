/**
 * What a parse needs of a fetched URL. Built by the host workflow for parseBatch and parseDocument,
 * and by a fetch burst that parses its own bodies: one mapping, so both parse the same input.
 */
import type { FetchUrlResult, HostWorkItem, ParseDocumentInput } from '../activities/contracts.js';

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
    // An activity's input is not part of replay's command matching: adding it keeps old histories valid.
    ...(item.purpose === 'sitemap' ? { purpose: item.purpose } : {}),
  };
}
