// A gap under the delay in the server's log, set beside our crawler's own fetch records: was the
// next request started too early by our clock (our bug), or did the server stamp the previous
// response's end late (its callbacks run on a busy event loop)? Each side's gap is read on its
// own clock, so the two processes' clocks need not agree.
import pg from 'pg';
import { round } from './stats.js';
import type { GapSample } from './web-figures.js';

export interface ClientGap {
  host: string;
  /** End-to-start gap the server logged, ms. */
  serverGapMs: number;
  /** The same from the clock read just before the previous response's last write: the most the gap can have been. */
  serverGapFromLastWriteMs?: number;
  /** The same gap by our fetch records (next request's start minus the previous body's end), ms; absent when either has no record. */
  clientGapMs?: number;
  /**
   * Which request had no record of its timing. A robots.txt request has its end in robots_cache
   * (`fetched_at`, the latest refresh of its origin) but not its start: a robots.txt after a page is 'next'.
   */
  missing?: 'previous' | 'next' | 'both';
}

const ROBOTS_PATH = '/robots.txt';

interface FetchTiming {
  startedAtMs: number;
  endedAtMs: number;
}

/** Our side of each sampled gap, from the crawl database's fetch records. */
export async function clientGaps(databaseUrl: string, samples: readonly GapSample[], port: number): Promise<ClientGap[]> {
  if (samples.length === 0) return [];
  const urlOf = (host: string, path: string) => `http://${host}:${port}${path}`;
  const urls = samples.flatMap((sample) => [urlOf(sample.host, sample.previous.path), urlOf(sample.host, sample.next.path)]);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const origins = samples.map((sample) => urlOf(sample.host, ''));
  let rows: { url: string; started_at_ms: number; total_ms: number | null }[];
  let robotsRows: { origin: string; ended_at_ms: number }[];
  try {
    ({ rows } = await client.query(
      `SELECT url, extract(epoch FROM fetched_at) * 1000 AS started_at_ms, (timings->>'totalMs')::float8 AS total_ms
         FROM fetches WHERE url = ANY($1::text[])`,
      [urls],
    ));
    // The robots refresher stamps fetched_at with its clock right after the file's last byte.
    ({ rows: robotsRows } = await client.query(
      `SELECT origin, extract(epoch FROM fetched_at) * 1000 AS ended_at_ms FROM robots_cache WHERE origin = ANY($1::text[]) AND fetched_at IS NOT NULL`,
      [origins],
    ));
  } finally {
    await client.end();
  }
  const byUrl = new Map<string, FetchTiming[]>();
  for (const row of rows) {
    const startedAtMs = Number(row.started_at_ms);
    const timings = byUrl.get(row.url) ?? [];
    timings.push({ startedAtMs, endedAtMs: startedAtMs + Number(row.total_ms ?? 0) });
    byUrl.set(row.url, timings);
  }
  const robotsEndedAtMs = new Map(robotsRows.map((row) => [row.origin, Number(row.ended_at_ms)]));
  const endOfPrevious = (sample: GapSample): number | undefined => {
    if (sample.previous.path === ROBOTS_PATH) return robotsEndedAtMs.get(urlOf(sample.host, ''));
    return nearest(byUrl.get(urlOf(sample.host, sample.previous.path)), (t) => t.endedAtMs, sample.previous.finishedAtMs)?.endedAtMs;
  };
  return samples.map((sample) => {
    // A URL fetched more than once (a retry): the record nearest the server's moment is that request.
    const previousEndedAtMs = endOfPrevious(sample);
    const next = nearest(byUrl.get(urlOf(sample.host, sample.next.path)), (t) => t.startedAtMs, sample.next.startedAtMs);
    const gap: ClientGap = {
      host: sample.host,
      serverGapMs: sample.gapMs,
      ...(sample.gapFromLastWriteMs === undefined ? {} : { serverGapFromLastWriteMs: sample.gapFromLastWriteMs }),
    };
    if (previousEndedAtMs !== undefined && next) gap.clientGapMs = round(next.startedAtMs - previousEndedAtMs, 1);
    else gap.missing = previousEndedAtMs === undefined && !next ? 'both' : previousEndedAtMs !== undefined ? 'next' : 'previous';
    return gap;
  });
}

function nearest(timings: FetchTiming[] | undefined, at: (timing: FetchTiming) => number, targetMs: number): FetchTiming | undefined {
  let best: FetchTiming | undefined;
  for (const timing of timings ?? []) if (!best || Math.abs(at(timing) - targetMs) < Math.abs(at(best) - targetMs)) best = timing;
  return best;
}
