import { TypedFailure } from '../../domain/failures/index.js';
import { isParsedBody } from '../../domain/fetching/index.js';
import { hostDownloadMs } from '../../domain/politeness/index.js';
import { canonicalFromLinkHeader } from '../../domain/url/index.js';
import { bodyKeyFor } from '../../storage/object-store/body-key.js';
import type { FetchRecord } from '../../storage/postgres/fetch-repository.js';
import { isReadAsSitemap, type FetchFailureDetails, type FetchUrlInput, type FetchUrlResult } from '../../contracts/activities.js';

/** A fetch redelivered after its work was done answers from its record, and fetches nothing. */
export function resultFromRecord(record: FetchRecord, input: FetchUrlInput): FetchUrlResult {
  const atMs = record.fetchedAt.getTime();
  const finishedAtMs = atMs + (record.timings['totalMs'] ?? 0);
  // Records from before lastByteMs was kept answer without it (politeness then uses the elapsed time).
  const lastByteMs = record.timings['lastByteMs'];
  const responseMs = lastByteMs === undefined ? {} : { responseMs: hostDownloadMs({ lastByteMs, loopLagMs: record.timings['loopLagMs'] ?? 0 }) };
  switch (record.outcome) {
    case 'ok':
      return {
        kind: 'fetched',
        status: record.status ?? 200,
        bodyKey: record.bodyKey ?? bodyKeyFor(record.rawHash ?? ''),
        rawHash: record.rawHash ?? '',
        bytes: record.bytes ?? 0,
        contentType: record.contentType ?? undefined,
        parse: isParsedBody(isReadAsSitemap(input.purpose), record.contentType ?? undefined),
        finalUrl: record.finalUrl,
        startedAtMs: atMs,
        finishedAtMs,
        ...responseMs,
        ...xRobotsTagOf(record.headers),
        ...linkCanonicalOf(record.headers, record.finalUrl),
      };
    case 'not-modified':
      return { kind: 'not-modified', status: 304, startedAtMs: atMs, finishedAtMs, ...responseMs };
    default:
      // A loop or an endless chain also kept its Location, but it is a terminal failure: answered below.
      if (record.outcome === 'redirect' || record.outcome === 'redirect-invalid') {
        const decision = record.outcome === 'redirect' ? 'follow' : 'invalid';
        return { kind: 'redirect', status: record.status ?? 301, location: record.redirectLocation, decision, startedAtMs: atMs, finishedAtMs, ...responseMs };
      }
      // A failure recorded at settlement: report it again, without a new request.
      throw new TypedFailure<FetchFailureDetails>(record.outcome, `already settled as ${record.outcome} for generation ${input.generation}`, { nonRetryable: true }, {
        startedAtMs: atMs,
        finishedAtMs,
        requested: false,
        ...(record.status === null ? {} : { status: record.status }),
      });
  }
}

/** The kept X-Robots-Tag header, carried to the parse so it need not read the fetch record. */
export function xRobotsTagOf(headers: Record<string, string>): { xRobotsTag?: string } {
  const value = headers['x-robots-tag'];
  return value === undefined ? {} : { xRobotsTag: value };
}

/** The Link header's rel=canonical target, carried to the parse like X-Robots-Tag. */
export function linkCanonicalOf(headers: Record<string, string>, pageUrl: string): { linkCanonical?: string } {
  const target = canonicalFromLinkHeader(headers['link'], pageUrl);
  return target === undefined ? {} : { linkCanonical: target };
}
