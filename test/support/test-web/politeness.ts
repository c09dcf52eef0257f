import type { RequestLogEntry } from './types.js';

/** Options for {@link politenessReport}. */
export interface PolitenessReportOptions {
  /**
   * How a gap is measured. 'end-to-start' (default): from the end of one response to the start of
   * the next request, which is how the crawler schedules (next_fetch_at = now + delay after a
   * response) and the stricter of the two. 'start-to-start': between request arrivals.
   */
  measure?: 'start-to-start' | 'end-to-start';
  /** Gaps this much shorter than `minDelayMs` still pass (timer granularity). Default 0 ms. */
  toleranceMs?: number;
  /**
   * End-to-start only: which stamp ends a response. 'last-write' (default): the clock read just
   * before its last write, so a gap under the delay is certain. 'finish': the clock read in the
   * callback after it, which a descheduled server process reads late (10-20 ms on a busy
   * machine): the strict reading, with false alarms; the bench reports both.
   */
  endStamp?: 'last-write' | 'finish';
}

/** Two consecutive requests to one host closer than the minimum delay. */
export interface PolitenessViolation {
  host: string;
  a: RequestLogEntry;
  b: RequestLogEntry;
  gapMs: number;
  /**
   * End-to-start only: the gap from the clock read just before `a`'s last write, the longest the
   * true gap can be. Under the delay too: the violation is certain; at or above it, the gap is
   * under the delay only by the uncertainty of the server's end stamp.
   */
  gapFromLastWriteMs?: number;
}

/** Two requests to one host in flight at once: `b` arrived before `a` had finished. */
export interface RequestOverlap {
  host: string;
  a: RequestLogEntry;
  b: RequestLogEntry;
  overlapMs: number;
}

export interface PolitenessReport {
  violations: PolitenessViolation[];
  overlaps: RequestOverlap[];
  /** Smallest gap per host with at least two requests (same measure); negative when they overlapped. */
  minGapMsByHost: Map<string, number>;
}

/** The log grouped by host, each host's requests in arrival order. */
export function requestsByHost(log: readonly RequestLogEntry[]): Map<string, RequestLogEntry[]> {
  const byHost = new Map<string, RequestLogEntry[]>();
  for (const entry of log) {
    const list = byHost.get(entry.host);
    if (list) list.push(entry);
    else byHost.set(entry.host, [entry]);
  }
  for (const list of byHost.values()) list.sort((x, y) => x.startedAtMs - y.startedAtMs);
  return byHost;
}

/**
 * Checks the per-host politeness contract from the server's side: consecutive requests to one host
 * (robots.txt included) at least `minDelayMs` apart, and never two in flight at once.
 */
export function politenessReport(log: readonly RequestLogEntry[], minDelayMs: number, options: PolitenessReportOptions = {}): PolitenessReport {
  const measure = options.measure ?? 'end-to-start';
  const threshold = minDelayMs - (options.toleranceMs ?? 0);
  const endStamp = options.endStamp ?? 'last-write';
  const report: PolitenessReport = { violations: [], overlaps: [], minGapMsByHost: new Map() };
  for (const [host, entries] of requestsByHost(log)) {
    let minGap = Infinity;
    // The request that finishes last so far: any later arrival before its end overlaps it.
    let latest: RequestLogEntry | undefined;
    for (let i = 0; i < entries.length; i++) {
      const b = entries[i] as RequestLogEntry;
      const a = entries[i - 1];
      if (a) {
        const endMs = endStamp === 'last-write' ? (a.lastWriteAtMs ?? a.finishedAtMs) : a.finishedAtMs;
        const gapMs = measure === 'start-to-start' ? b.startedAtMs - a.startedAtMs : b.startedAtMs - endMs;
        minGap = Math.min(minGap, gapMs);
        if (gapMs < threshold) {
          const fromLastWrite = measure === 'end-to-start' && a.lastWriteAtMs !== undefined ? { gapFromLastWriteMs: b.startedAtMs - a.lastWriteAtMs } : {};
          report.violations.push({ host, a, b, gapMs, ...fromLastWrite });
        }
      }
      if (latest && b.startedAtMs < latest.finishedAtMs) {
        report.overlaps.push({ host, a: latest, b, overlapMs: Math.min(latest.finishedAtMs, b.finishedAtMs) - b.startedAtMs });
      }
      if (!latest || b.finishedAtMs > latest.finishedAtMs) latest = b;
    }
    if (entries.length > 1) report.minGapMsByHost.set(host, minGap);
  }
  return report;
}
