import type { CanonicalUrl } from '../../domain/url/index.js';
import type { FetchedBody, FetchResponseHead } from '../../http/index.js';
import type { FetchRecord } from '../../storage/postgres/fetch-repository.js';
import type { FetchUrlInput } from '../../contracts/activities.js';
import type { CrawlContext } from '../frontier/crawl-context.js';
import type { ActivityDeps } from '../deps.js';
import type { ActivityScope } from './activity-scope.js';
import type { UrlFetchOptions } from './url-fetch-types.js';

/** What every step of one URL's fetch knows once its robots rules allowed it. */
export interface UrlFetchStep {
  deps: ActivityDeps;
  scope: ActivityScope;
  context: CrawlContext;
  input: FetchUrlInput;
  attemptNumber: number;
  options: UrlFetchOptions;
  url: CanonicalUrl;
}

/** When the request went out and ended, and what the host took (hostDownloadMs). */
export interface ResponseTiming {
  startedAtMs: number;
  finishedAtMs: number;
  responseMs: number;
}

/** A fetch record's fields every outcome shares: the outcome's own fields are added by its step. */
export type BaseFetchRecord = Omit<FetchRecord, 'outcome' | 'rawHash' | 'bodyKey' | 'bytes' | 'redirectLocation'>;

/** A response's fields for its fetch record. */
export function baseFetchRecordOf(
  step: UrlFetchStep,
  head: FetchResponseHead,
  body: FetchedBody,
  startedAtMs: number,
  cost: { sentBytes: number; receivedBytes: number },
  keptHeaders: Record<string, string>,
): BaseFetchRecord {
  const { input } = step;
  return {
    fingerprint: input.fingerprint,
    generation: input.generation,
    crawlId: input.crawlId,
    url: input.url,
    finalUrl: step.url.url,
    fetchedAt: new Date(startedAtMs),
    status: head.status,
    contentType: head.headers['content-type'] ?? null,
    headers: keptHeaders,
    requestHeaders: head.requestHeaders,
    wireBytes: body.wireBytes,
    timings: { connectMs: head.timings.connectMs ?? -1, firstByteMs: head.timings.firstByteMs, lastByteMs: body.lastByteMs, loopLagMs: body.loopLagMs, totalMs: body.totalMs },
    ...cost,
  };
}
