/**
 * The politeness and retry knobs one crawl may set (docs/politeness.md). They travel with the
 * crawl's URLs to the host workflows (HostWorkItem.politeness), like minHostDelayMs does, and to
 * the fetch and robots activities through the crawl record. Every field is optional: absent means
 * the documented default, so crawls stored before a knob existed keep working.
 */
import { PolitenessInputError, resolveHostPolitenessPolicy, type HostPolitenessPolicy } from '../domain/politeness/index.js';
import { ROBOTS_UNREACHABLE_RETRY_MS } from '../domain/robots/index.js';

/** HostPolitenessPolicy fields a crawl may override; minDelayMs and concurrency have their own CrawlConfig fields. */
export type CrawlHostPolicyOverrides = Partial<
  Pick<
    HostPolitenessPolicy,
    'adaptiveFactor' | 'maxAdaptiveDelayMs' | 'throttleBaseDelayMs' | 'maxThrottleDelayMs' | 'circuitFailureThreshold' | 'circuitCooldownMs' | 'maxCircuitCooldownMs'
  >
>;

export interface CrawlPolitenessConfig extends CrawlHostPolicyOverrides {
  /**
   * Multiplies every failure type's retry backoff (base and cap, docs/failures.md): 2 retries half
   * as often, 0.01 makes tests fast. Never lowers a retry below the host delay or a Retry-After.
   * Default 1.
   */
  retryDelayScale?: number;
  /**
   * How soon an unreachable robots.txt (5xx, 429, network error) is fetched again, ms; the URLs of
   * that origin wait for it (RobotsUnreachable). Default 600_000 (10 min).
   */
  robotsUnreachableRetryMs?: number;
  /**
   * How long a URL waits for its origin's unreachable robots.txt before it is deferred to a later
   * crawl (never fetched without rules), ms. Absent: it waits as RFC 9309 allows, through
   * RobotsUnreachable's attempts (about an hour), then fails. `crawler crawl` sets 180_000.
   */
  robotsUnreachablePatienceMs?: number;
}

export const HOST_POLICY_OVERRIDE_FIELDS = [
  'adaptiveFactor',
  'maxAdaptiveDelayMs',
  'throttleBaseDelayMs',
  'maxThrottleDelayMs',
  'circuitFailureThreshold',
  'circuitCooldownMs',
  'maxCircuitCooldownMs',
] as const satisfies readonly (keyof CrawlHostPolicyOverrides)[];

const KNOWN_FIELDS = new Set<string>([...HOST_POLICY_OVERRIDE_FIELDS, 'retryDelayScale', 'robotsUnreachableRetryMs', 'robotsUnreachablePatienceMs']);

/** The crawl's robotsUnreachableRetryMs, or its default. */
export function robotsUnreachableRetryMsOf(politeness: CrawlPolitenessConfig | undefined): number {
  return politeness?.robotsUnreachableRetryMs ?? ROBOTS_UNREACHABLE_RETRY_MS;
}

/** The crawl's retryDelayScale, or 1. */
export function retryDelayScaleOf(politeness: CrawlPolitenessConfig | undefined): number {
  return politeness?.retryDelayScale ?? 1;
}

/** Only the HostPolitenessPolicy fields of a crawl's politeness config (what the host workflow merges). */
export function hostPolicyOverridesOf(politeness: CrawlPolitenessConfig | undefined): CrawlHostPolicyOverrides {
  const overrides: CrawlHostPolicyOverrides = {};
  for (const field of HOST_POLICY_OVERRIDE_FIELDS) {
    const value = politeness?.[field];
    if (value !== undefined) overrides[field] = value;
  }
  return overrides;
}

/**
 * Checks a crawl's politeness config once, at the boundary. Returns undefined when it is valid,
 * else the offending field (dotted, `politeness.x`) and what is wrong with it.
 */
export function politenessConfigProblem(politeness: unknown): { field: string; message: string } | undefined {
  if (typeof politeness !== 'object' || politeness === null || Array.isArray(politeness)) {
    return { field: 'politeness', message: 'expected an object of politeness knobs, e.g. {"throttleBaseDelayMs": 10000}' };
  }
  for (const [key, value] of Object.entries(politeness)) {
    if (!KNOWN_FIELDS.has(key)) return { field: `politeness.${key}`, message: `unknown knob; expected one of ${[...KNOWN_FIELDS].join(', ')}` };
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      return { field: `politeness.${key}`, message: `expected a finite number >= 0, got ${String(value)}` };
    }
  }
  const config = politeness as CrawlPolitenessConfig;
  if (config.robotsUnreachableRetryMs !== undefined && config.robotsUnreachableRetryMs > 24 * 3_600_000) {
    return { field: 'politeness.robotsUnreachableRetryMs', message: 'expected at most 86400000 (24 h, RFC 9309 §2.4)' };
  }
  try {
    resolveHostPolitenessPolicy(hostPolicyOverridesOf(config));
  } catch (error) {
    if (error instanceof PolitenessInputError) {
      return { field: error.field.replace(/^policy\./, 'politeness.'), message: error.message.replace(/^policy\.\w+ = \S+ is invalid: /, '') };
    }
    throw error;
  }
  return undefined;
}
