// Staleness per SLA and tier, and the SLAs a cycle's budget could not keep, as lines for
// `crawler status`, `crawler sla list` and `crawler schedule describe`.
import type { StalenessReport } from '../contracts/status.js';
import type { SlaShortfall, StalenessFigures } from '../domain/recrawl/index.js';

/** 5_400_000 ms as "1.5 h", 12_300 as "12.3 s", 900 as "900 ms". */
export function formatDurationMs(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
    [1_000, 's'],
  ];
  for (const [size, unit] of units) {
    if (Math.abs(ms) >= size) {
      const value = ms / size;
      return `${value >= 100 || Number.isInteger(value) ? Math.round(value) : value.toFixed(1)} ${unit}`;
    }
  }
  return `${Math.round(ms)} ms`;
}

function figures(staleness: StalenessFigures): string {
  if (staleness.urls === 0) return staleness.neverFetched > 0 ? `${staleness.neverFetched} URLs, none fetched yet` : 'no URLs yet';
  const of = (ms: number | null): string => (ms === null ? '-' : formatDurationMs(ms));
  return `p50 ${of(staleness.p50Ms)}, p95 ${of(staleness.p95Ms)}, max ${of(staleness.maxMs)} over ${staleness.urls} URLs${staleness.neverFetched > 0 ? ` (${staleness.neverFetched} never fetched)` : ''}`;
}

/** One line per SLA (its promise, staleness, URLs past it) and per value tier. */
export function describeStaleness(report: StalenessReport, indent = '  '): string[] {
  return [
    ...report.bySla.map((sla) => {
      const p95 = sla.p95Ms;
      const verdict = p95 === null ? '' : p95 <= sla.maxStalenessMs ? ', p95 within it' : ', **p95 past it**';
      return `${indent}SLA ${sla.slaId} ${sla.prefix} within ${formatDurationMs(sla.maxStalenessMs)}: ${figures(sla)}${verdict}; ${sla.breaching} URLs past it now`;
    }),
    ...report.byTier.map((tier) => `${indent}tier ${tier.tier}: ${figures(tier)}${report.tiersSampled ? ' (a sample)' : ''}`),
  ];
}

/** One line per SLA a cycle's budget could not keep. */
export function describeShortfalls(shortfalls: readonly SlaShortfall[], indent = '  '): string[] {
  return shortfalls.map(
    (shortfall) =>
      `${indent}SLA ${shortfall.slaId} ${shortfall.prefix} (within ${formatDurationMs(shortfall.maxStalenessMs)}): budget too small, ${shortfall.unplannedUrls} of ${shortfall.dueUrls} due URLs not planned; the stalest ${formatDurationMs(shortfall.stalestUnplannedMs)} old${shortfall.behindMs > 0 ? `, ${formatDurationMs(shortfall.behindMs)} behind its promise` : ''}`,
  );
}
