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
  /** Which request had no fetch record (robots.txt fetches are kept in robots_cache, without timings). */
  missing?: 'previous' | 'next' | 'both';
}

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
  let rows: { url: string; started_at_ms: number; total_ms: number | null }[];
  try {
    ({ rows } = await client.query(
      `SELECT url, extract(epoch FROM fetched_at) * 1000 AS started_at_ms, (timings->>'totalMs')::float8 AS total_ms
         FROM fetches WHERE url = ANY($1::text[])`,
      [urls],
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
  return samples.map((sample) => {
    // A URL fetched more than once (a retry): the record nearest the server's moment is that request.
    const previous = nearest(byUrl.get(urlOf(sample.host, sample.previous.path)), (t) => t.endedAtMs, sample.previous.finishedAtMs);
    const next = nearest(byUrl.get(urlOf(sample.host, sample.next.path)), (t) => t.startedAtMs, sample.next.startedAtMs);
    const gap: ClientGap = {
      host: sample.host,
      serverGapMs: sample.gapMs,
      ...(sample.gapFromLastWriteMs === undefined ? {} : { serverGapFromLastWriteMs: sample.gapFromLastWriteMs }),
    };
    if (previous && next) gap.clientGapMs = round(next.startedAtMs - previous.endedAtMs, 1);
    else gap.missing = !previous && !next ? 'both' : previous ? 'next' : 'previous';
    return gap;
  });
}

function nearest(timings: FetchTiming[] | undefined, at: (timing: FetchTiming) => number, targetMs: number): FetchTiming | undefined {
  let best: FetchTiming | undefined;
  for (const timing of timings ?? []) if (!best || Math.abs(at(timing) - targetMs) < Math.abs(at(best) - targetMs)) best = timing;
  return best;
}
