// What the test web's own request log says about a crawl: how many pages, how fast the server
// answered, and whether each host's delay held (politenessReport, two measures).
import { politenessReport, requestsByHost, type RequestLogEntry } from '../../test/support/test-web/index.js';
import { latencySummary, round, type LatencySummary } from './stats.js';

export interface WebFigures {
  requests: number;
  pageRequests: number;
  robotsRequests: number;
  /** Distinct page URLs requested. */
  distinctPages: number;
  /** Page URLs requested more than once. */
  repeatedPages: number;
  /** Expected reachable pages never requested. */
  missingExpected: number;
  /** Requested pages outside the expected set (nofollow targets, disallowed pages, 404s). */
  outsideExpected: number;
  /** Pages robots.txt disallows to our token that were requested anyway. */
  disallowedRequested: number;
  hostsRequested: number;
  statusCounts: Record<string, number>;
  /** Request arrival to response end, as the server saw it. */
  serverLatency: LatencySummary;
  /** First arrival to last response end, seconds. */
  activeSeconds: number;
  politeness: {
    minDelayMs: number;
    /** Gaps from the end of one response to the next arrival shorter than the delay (the contract we keep). */
    endToStartViolations: number;
    /**
     * Of those, the ones under the delay even from the clock read just before the response's last
     * write (the earliest the end can have been): certain. The others are under the delay only by
     * the server's end stamp, read in a callback a descheduled process runs late.
     */
    endToStartCertainViolations: number;
    /** Gaps between arrivals shorter than the delay (the looser reading, e.g. Crawlee's). */
    startToStartViolations: number;
    /** Two requests to one host in flight at once. */
    overlaps: number;
    /** Smallest end-to-start gap over all hosts, ms (negative: an overlap). */
    minGapMs: number;
    /**
     * Every end-to-start gap between consecutive requests to one host. Its median against the
     * delay says whether the delay or the crawler's own overhead paced the hosts.
     */
    gaps: LatencySummary;
    /** Worst host's violation count (end-to-start). */
    worstHost?: { host: string; violations: number };
    /** The first end-to-start violations, as the server logged them: what the crawler's own records are set beside. */
    violationSamples: GapSample[];
  };
}

/** One end-to-start gap under the delay: the response before it and the request after it, server clock. */
export interface GapSample {
  host: string;
  previous: { path: string; finishedAtMs: number };
  next: { path: string; startedAtMs: number };
  gapMs: number;
  /** The same gap from the clock read just before the previous response's last write: the most it can be. */
  gapFromLastWriteMs?: number;
}

const MAX_GAP_SAMPLES = 20;

export function webFigures(
  log: readonly RequestLogEntry[],
  minDelayMs: number,
  expected: ReadonlySet<string>,
  disallowed: ReadonlySet<string>,
  port: number,
): WebFigures {
  const pages = log.filter((entry) => !entry.path.startsWith('/robots.txt'));
  const urls = pages.map((entry) => `http://${entry.host}:${port}${entry.path}`);
  const counts = new Map<string, number>();
  for (const url of urls) counts.set(url, (counts.get(url) ?? 0) + 1);
  const statusCounts: Record<string, number> = {};
  for (const entry of log) statusCounts[String(entry.status)] = (statusCounts[String(entry.status)] ?? 0) + 1;

  // The strict reading (the end stamped after the last write); certain ones are counted apart.
  const strict = politenessReport(log, minDelayMs, { measure: 'end-to-start', endStamp: 'finish' });
  const loose = politenessReport(log, minDelayMs, { measure: 'start-to-start' });
  const byHost = new Map<string, number>();
  for (const violation of strict.violations) byHost.set(violation.host, (byHost.get(violation.host) ?? 0) + 1);
  const worst = [...byHost].sort((a, b) => b[1] - a[1])[0];
  const gaps = [...strict.minGapMsByHost.values()];
  const allGaps: number[] = [];
  for (const entries of requestsByHost(log).values()) {
    for (let i = 1; i < entries.length; i++) allGaps.push(entries[i]!.startedAtMs - entries[i - 1]!.finishedAtMs);
  }

  let first = Infinity;
  let last = -Infinity;
  for (const entry of log) {
    first = Math.min(first, entry.startedAtMs);
    last = Math.max(last, entry.finishedAtMs);
  }
  return {
    requests: log.length,
    pageRequests: pages.length,
    robotsRequests: log.length - pages.length,
    distinctPages: counts.size,
    repeatedPages: [...counts.values()].filter((n) => n > 1).length,
    missingExpected: [...expected].filter((url) => !counts.has(url)).length,
    outsideExpected: [...counts.keys()].filter((url) => !expected.has(url)).length,
    disallowedRequested: [...counts.keys()].filter((url) => disallowed.has(url)).length,
    hostsRequested: new Set(log.map((entry) => entry.host)).size,
    statusCounts,
    serverLatency: latencySummary(log.map((entry) => entry.finishedAtMs - entry.startedAtMs)),
    activeSeconds: log.length === 0 ? 0 : round((last - first) / 1000, 2),
    politeness: {
      minDelayMs,
      endToStartViolations: strict.violations.length,
      endToStartCertainViolations: strict.violations.filter((violation) => (violation.gapFromLastWriteMs ?? violation.gapMs) < minDelayMs).length,
      startToStartViolations: loose.violations.length,
      overlaps: strict.overlaps.length,
      gaps: latencySummary(allGaps),
      minGapMs: gaps.length === 0 ? Number.NaN : round(gaps.reduce((min, gap) => Math.min(min, gap), Infinity)),
      ...(worst ? { worstHost: { host: worst[0], violations: worst[1] } } : {}),
      violationSamples: strict.violations.slice(0, MAX_GAP_SAMPLES).map((violation) => ({
        host: violation.host,
        previous: { path: violation.a.path, finishedAtMs: violation.a.finishedAtMs },
        next: { path: violation.b.path, startedAtMs: violation.b.startedAtMs },
        gapMs: round(violation.gapMs, 1),
        ...(violation.gapFromLastWriteMs === undefined ? {} : { gapFromLastWriteMs: round(violation.gapFromLastWriteMs, 1) }),
      })),
    },
  };
}
