// Small numeric helpers for benchmark figures.

/** The q-quantile (0..1) of `values` by nearest rank; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  return quantileOfSorted([...values].sort((a, b) => a - b), q);
}

function quantileOfSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

export interface LatencySummary {
  count: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export function latencySummary(valuesMs: readonly number[]): LatencySummary {
  const sorted = [...valuesMs].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50Ms: round(quantileOfSorted(sorted, 0.5)),
    p99Ms: round(quantileOfSorted(sorted, 0.99)),
    maxMs: round(sorted.at(-1) ?? Number.NaN),
  };
}

export function sum(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

/** Rounded to `digits` decimals; NaN and infinities stay as they are. */
export function round(value: number, digits = 1): number {
  if (!Number.isFinite(value)) return value;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** `a / b` to three digits: ours over another crawler's pages per second (a zero `b` counts as 0.001). */
export function ratioOf(a: number, b: number): number {
  return round(a / Math.max(0.001, b), 3);
}
