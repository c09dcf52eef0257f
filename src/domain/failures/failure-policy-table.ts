import { FAILURE_POLICIES, type FailurePolicy } from './failure-policies.js';
import { FETCH_FAILURE_TYPES } from './fetch-failure-type.js';

/** A duration for people: "30 d", "24 h", "5 min", "10 s", "250 ms". Whole units only when exact; days from 2 d. */
export function formatDurationMs(durationMs: number): string {
  if (durationMs >= 2 * 86_400_000 && durationMs % 86_400_000 === 0) return `${durationMs / 86_400_000} d`;
  const units: Array<[number, string]> = [
    [3_600_000, 'h'],
    [60_000, 'min'],
    [1000, 's'],
  ];
  for (const [sizeMs, unit] of units) {
    if (durationMs >= sizeMs && durationMs % sizeMs === 0) return `${durationMs / sizeMs} ${unit}`;
  }
  return `${durationMs} ms`;
}

function backoffCell(policy: FailurePolicy): string {
  if (policy.retryLayer === 'none') return '-';
  return `${formatDurationMs(policy.baseDelayMs)} * 2^(n-1), cap ${formatDurationMs(policy.maxDelayMs)}, * ${policy.jitter.min}..${policy.jitter.max}`;
}

/**
 * The policy table as Markdown, one row per FetchFailureType in declaration order. docs/failures.md
 * embeds this output, and a test keeps the two identical, so the README cannot drift from the code.
 */
export function failurePoliciesMarkdownTable(): string {
  const header = ['| Type | Retry layer | Attempts | Backoff | Host effect | Recheck | Poison | What happens |', '|---|---|---|---|---|---|---|---|'];
  const rows = FETCH_FAILURE_TYPES.map((type) => {
    const policy = FAILURE_POLICIES[type];
    const cells = [
      `\`${type}\``,
      policy.retryLayer,
      String(policy.maxAttempts),
      backoffCell(policy),
      policy.throttlesHost ? `${policy.hostEffect}, throttles host` : policy.hostEffect,
      policy.recheckAfterMs === undefined ? '-' : formatDurationMs(policy.recheckAfterMs),
      policy.countsTowardPoison ? 'yes' : 'no',
      policy.summary.replaceAll('|', '\\|'),
    ];
    return `| ${cells.join(' | ')} |`;
  });
  return [...header, ...rows].join('\n');
}
