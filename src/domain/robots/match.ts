import { requireIntegerOption } from './errors.js';
import { compilePattern, patternMatches, type CompiledPattern } from './pattern.js';
import { productTokenKey } from './product-token.js';
import { canonicalRequestPath, isRobotsTxtPath } from './request-path.js';
import type { RobotsRule, RobotsRules } from './types.js';

/** Whether a path may be fetched, and why. */
export interface RobotsVerdict {
  allowed: boolean;
  /** The rule that decided, when one matched; absent when no rule matched (allowed). */
  matched?: { kind: 'allow' | 'disallow'; pattern: string; line: number };
  /** Which groups applied: ours by product token, the `*` groups, or none (everything allowed). */
  group: 'specific' | 'wildcard' | 'none';
}

/** The rules that apply to one crawler, groups already selected and merged. */
export interface SelectedRobotsGroup {
  group: RobotsVerdict['group'];
  rules: RobotsRule[];
  /** Largest Crawl-delay of the selected groups, in seconds; absent when none gave a valid one. */
  crawlDelaySeconds?: number;
}

/**
 * Selects the groups for `productToken` (RFC 9309 §2.2.1): every group naming the token
 * (case-insensitively) merged into one; else every `*` group merged; else none. A group of
 * our own means the `*` groups do not apply to us at all, even where ours is silent.
 */
export function selectRobotsGroup(rules: RobotsRules, productToken: string): SelectedRobotsGroup {
  const key = productTokenKey(productToken);
  const specific = key === '' || key === '*' ? [] : rules.groups.filter((group) => group.userAgents.includes(key));
  const chosen = specific.length > 0 ? specific : rules.groups.filter((group) => group.userAgents.includes('*'));
  const selected: SelectedRobotsGroup = {
    group: specific.length > 0 ? 'specific' : chosen.length > 0 ? 'wildcard' : 'none',
    rules: chosen.flatMap((group) => group.rules),
  };
  for (const group of chosen) {
    if (group.crawlDelaySeconds !== undefined) {
      selected.crawlDelaySeconds = Math.max(selected.crawlDelaySeconds ?? 0, group.crawlDelaySeconds);
    }
  }
  return selected;
}

/**
 * Compiles the rules that apply to `productToken` once and returns a matcher for many paths
 * of the same origin; {@link matchRobots} is this for a single path.
 */
export function compileRobotsMatcher(rules: RobotsRules, productToken: string): (pathAndQuery: string) => RobotsVerdict {
  const selected = selectRobotsGroup(rules, productToken);
  const compiled = selected.rules.map((rule): [RobotsRule, CompiledPattern] => [rule, compilePattern(rule.pattern)]);
  return (pathAndQuery) => {
    const path = canonicalRequestPath(pathAndQuery);
    if (isRobotsTxtPath(path)) return { allowed: true, group: selected.group };
    let best: [RobotsRule, CompiledPattern] | undefined;
    for (const candidate of compiled) {
      if (!patternMatches(candidate[1], path)) continue;
      if (best === undefined || beats(candidate, best)) best = candidate;
    }
    if (best === undefined) return { allowed: true, group: selected.group };
    const [rule] = best;
    return {
      allowed: rule.kind === 'allow',
      matched: { kind: rule.kind, pattern: rule.pattern, line: rule.line },
      group: selected.group,
    };
  };
}

/**
 * Decides whether `pathAndQuery` (e.g. `/a/b?c=d`) may be fetched by the crawler whose product
 * token is `productToken` (RFC 9309 §2.2.2): the matching rule with the most octets wins, Allow
 * wins a tie, no match means allowed, and `/robots.txt` is always allowed. Both sides are
 * compared in canonical percent-encoding (see percent-encoding.ts); see request-path.ts for
 * what is accepted as `pathAndQuery`.
 */
export function matchRobots(rules: RobotsRules, productToken: string, pathAndQuery: string): RobotsVerdict {
  return compileRobotsMatcher(rules, productToken)(pathAndQuery);
}

function beats([rule, pattern]: [RobotsRule, CompiledPattern], [bestRule, bestPattern]: [RobotsRule, CompiledPattern]): boolean {
  if (pattern.octets !== bestPattern.octets) return pattern.octets > bestPattern.octets;
  // Equivalent length: Allow wins (§2.2.2); otherwise the earlier line stays, for stable reports.
  return rule.kind === 'allow' && bestRule.kind === 'disallow';
}

/** How Crawl-delay is read. */
export interface CrawlDelayOptions {
  /**
   * Ceiling for a Crawl-delay, in milliseconds. Default {@link MAX_CRAWL_DELAY_MS} (60 s): a
   * larger value would let one line in a robots file park a host for hours; our adaptive delay
   * and Retry-After still slow a host that really needs it.
   */
  maxCrawlDelayMs?: number;
}

/** Default ceiling for Crawl-delay: 60 seconds. */
export const MAX_CRAWL_DELAY_MS = 60_000;

/**
 * The Crawl-delay that applies to `productToken`, in milliseconds (to the nearest ms), clamped to
 * `maxCrawlDelayMs`; `undefined` when the selected groups give none. Crawl-delay is not part of
 * RFC 9309; we honour it as the minimum spacing between two requests to the origin. Values that
 * are not non-negative decimal numbers were already dropped by the parser.
 *
 * @throws RobotsError `ROBOTS_OPTIONS_INVALID` for a bad `options.maxCrawlDelayMs`.
 */
export function crawlDelayMs(rules: RobotsRules, productToken: string, options: CrawlDelayOptions = {}): number | undefined {
  const ceilingMs = requireIntegerOption('options.maxCrawlDelayMs', options.maxCrawlDelayMs ?? MAX_CRAWL_DELAY_MS, 0, 86_400_000);
  const seconds = selectRobotsGroup(rules, productToken).crawlDelaySeconds;
  if (seconds === undefined) return undefined;
  return Math.min(Math.round(seconds * 1000), ceilingMs);
}
