// Crawler traps (docs/design.md, "Crawler traps") are found by growth pattern, not one count: calendars, facet
// explosions, session ids and self-repeating paths each leave a different shape in the URL
// space. The thresholds are starting points, and a real site can exceed any of them (deep API
// docs, many legitimate parameters), so crossing one lowers priority first; only far past it
// do we drop, and even then a deterministic sample of host and path overflows is kept so an
// operator can see what the pattern was.

import type { CanonicalUrl } from './canonicalize.js';
import { urlFingerprint } from './fingerprint.js';
import { isPathVariant, pathWithoutParams } from './path-variants.js';
import { pairNameKey, queryPairs } from './query-params.js';

export const DEFAULT_SESSION_PARAM_NAMES: readonly string[] = [
  'jsessionid', 'phpsessid', 'aspsessionid', 'asp.net_sessionid', 'sid', 'sessionid', 'session_id', 'sessid', 'session', 'cfid', 'cftoken', 'zenid', 'oscsid',
];

export interface TrapOptions {
  /** Links deeper than this are dropped: an explicit crawl bound, not a heuristic. Default none. */
  maxDepth?: number;
  /** Query pairs per URL before demotion Default 10. */
  maxQueryParams?: number;
  /** Canonical URL length, in characters, before demotion Default 200. */
  maxUrlLength?: number;
  /** Times one path segment may occur (`/a/b/a/b/a/b/a`) before demotion. Default 3. */
  maxRepeatedSegment?: number;
  /** Calendar-like dates outside now ± this many years are demoted; far future ones dropped. Default 2. */
  calendarYearsWindow?: number;
  /** URLs registered for one host before its new URLs are demoted. Default 1,000,000. */
  maxUrlsPerHost?: number;
  /** Distinct queries registered for one path before new ones are demoted. Default 50. */
  maxVariantsPerPath?: number;
  /** Query (or `;name=` path) parameter names that carry session ids, any case. Default DEFAULT_SESSION_PARAM_NAMES. */
  sessionParamNames?: string[];
  /** A count signal drops the URL beyond threshold × this; in between it demotes. Default 3. */
  dropMultiplier?: number;
  /** Share (0..1) of URLs past the host-budget or path-variant drop point kept, demoted, as a sample. Default 0.01. */
  overflowSampleRate?: number;
  /** Depth from which stalling unique content demotes. Default 5. */
  contentStallMinDepth?: number;
  /** Share of new content hashes (0..1) below which a depth counts as stalled. Default 0.01. */
  minUniqueContentRatio?: number;
}

export interface TrapContext {
  /** Link depth of this URL from its seed (seeds are 0). */
  depth: number;
  /** Current time, epoch milliseconds (calendar window). */
  nowMs: number;
  /** URLs already registered for this host in this crawl. */
  hostUrlCount: number;
  /** Variants (distinct queries or `;name=value` path parameters) already registered for this URL's path (pathWithoutParams). */
  pathVariantCount: number;
  /** Share (0..1) of new content hashes among recent fetches at this depth; undefined if unknown. */
  uniqueContentRatioAtDepth?: number;
}

export type TrapReasonCode =
  | 'depth'
  | 'query-params'
  | 'url-length'
  | 'repeated-segment'
  | 'calendar'
  | 'session-id'
  | 'host-budget'
  | 'path-variants'
  | 'content-stall';

export interface TrapReason {
  code: TrapReasonCode;
  /** What this signal alone would do. */
  action: 'demote' | 'drop';
  /** For operators: the measured value, the threshold, and what happens next. */
  detail: string;
}

export interface TrapAssessment {
  action: 'accept' | 'demote' | 'drop';
  /** Share of the URL's priority to subtract, 0..1: 0 when accepted, 1 when dropped. */
  priorityPenalty: number;
  reasons: TrapReason[];
}

/** Stable code for bad trap options. */
export class TrapOptionsError extends Error {
  override readonly name = 'TrapOptionsError';
  readonly code = 'TRAP_OPTION_INVALID';

  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`TrapOptions.${field}: ${message}`);
  }
}

const DEFAULTS = {
  maxQueryParams: 10,
  maxUrlLength: 200,
  maxRepeatedSegment: 3,
  calendarYearsWindow: 2,
  maxUrlsPerHost: 1_000_000,
  maxVariantsPerPath: 50,
  dropMultiplier: 3,
  overflowSampleRate: 0.01,
  contentStallMinDepth: 5,
  minUniqueContentRatio: 0.01,
};

// Penalty at the demotion threshold per signal; it grows to MAX_DEMOTE_PENALTY at the drop point.
const BASE_PENALTY: Record<TrapReasonCode, number> = {
  depth: 1,
  'query-params': 0.3,
  'url-length': 0.2,
  'repeated-segment': 0.4,
  calendar: 0.4,
  'session-id': 0.5,
  'host-budget': 0.5,
  'path-variants': 0.4,
  'content-stall': 0.5,
};
const MAX_DEMOTE_PENALTY = 0.9;
const SAMPLED_PENALTY = 0.95;
const PAST_CALENDAR_PENALTY = 0.3;

interface Signal extends TrapReason {
  penalty: number;
}

/**
 * How the frontier should treat `url` given the growth patterns around it: accept, demote
 * (subtract `priorityPenalty` of its priority) or drop, with one reason per signal that fired.
 * Pure and deterministic: the same inputs give the same answer in a workflow or a test.
 * @throws TrapOptionsError for a negative, non-finite or out-of-range option.
 */
export function assessTrap(url: CanonicalUrl, context: TrapContext, options: TrapOptions = {}): TrapAssessment {
  const o = resolveOptions(options);
  const signals: Signal[] = [];
  const push = (signal: Signal | undefined): void => {
    if (signal) signals.push(signal);
  };

  if (o.maxDepth !== undefined && context.depth > o.maxDepth) {
    push({ code: 'depth', action: 'drop', penalty: 1, detail: `depth ${context.depth} is beyond the crawl's maxDepth ${o.maxDepth}` });
  }
  const pairs = url.query === undefined ? [] : queryPairs(url.query);
  push(countSignal('query-params', pairs.length, o.maxQueryParams, o.dropMultiplier, 'query parameters', 'stop expanding parameter combinations without an allowlist'));
  push(countSignal('url-length', url.url.length, o.maxUrlLength, o.dropMultiplier, 'characters', 'check for session or token parameters'));
  push(countSignal('repeated-segment', maxSegmentRepeat(url.path), o.maxRepeatedSegment, o.dropMultiplier, 'repeats of one path segment', 'likely a relative-link loop'));
  push(calendarSignal(url, pairs, context.nowMs, o.calendarYearsWindow, o.dropMultiplier));
  push(sessionSignal(url.path, pairs, o.sessionNames));
  push(overflowSignal(url, 'host-budget', context.hostUrlCount + 1, o.maxUrlsPerHost, o, `URLs for host ${url.host}`));
  push(overflowSignal(url, 'path-variants', isPathVariant(url) ? context.pathVariantCount + 1 : 0, o.maxVariantsPerPath, o, `variants (queries, ;parameters) of ${pathWithoutParams(url.path)}`));
  const ratio = context.uniqueContentRatioAtDepth;
  if (ratio !== undefined && context.depth >= o.contentStallMinDepth && ratio < o.minUniqueContentRatio) {
    push({
      code: 'content-stall',
      action: 'demote',
      penalty: BASE_PENALTY['content-stall'],
      detail: `only ${(ratio * 100).toFixed(2)}% new content at depth ${context.depth} (threshold ${(o.minUniqueContentRatio * 100).toFixed(2)}%); lowering priority below this depth`,
    });
  }

  const reasons = signals.map(({ code, action, detail }) => ({ code, action, detail }));
  if (signals.length === 0) return { action: 'accept', priorityPenalty: 0, reasons };
  if (signals.some((signal) => signal.action === 'drop')) return { action: 'drop', priorityPenalty: 1, reasons };
  // Independent signals compound: each removes its share of what priority is left.
  const kept = signals.reduce((remaining, signal) => remaining * (1 - signal.penalty), 1);
  return { action: 'demote', priorityPenalty: round4(1 - kept), reasons };
}

type ResolvedOptions = Required<Omit<TrapOptions, 'maxDepth' | 'sessionParamNames'>> & {
  maxDepth: number | undefined;
  sessionNames: ReadonlySet<string>;
};

function resolveOptions(options: TrapOptions): ResolvedOptions {
  const count = (field: keyof typeof DEFAULTS, min: number): number => {
    const value = (options[field] as number | undefined) ?? DEFAULTS[field];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
      throw new TrapOptionsError(field, `${String(value)}; expected a finite number >= ${min}`);
    }
    return value;
  };
  const share = (field: 'overflowSampleRate' | 'minUniqueContentRatio'): number => {
    const value = count(field, 0);
    if (value > 1) throw new TrapOptionsError(field, `${value}; expected a share between 0 and 1`);
    return value;
  };
  if (options.maxDepth !== undefined && (!Number.isInteger(options.maxDepth) || options.maxDepth < 0)) {
    throw new TrapOptionsError('maxDepth', `${options.maxDepth}; expected a non-negative integer or undefined`);
  }
  const dropMultiplier = count('dropMultiplier', 1);
  if (dropMultiplier === 1) throw new TrapOptionsError('dropMultiplier', '1 leaves no room to demote before dropping; use at least 1.5');
  return {
    maxDepth: options.maxDepth,
    maxQueryParams: count('maxQueryParams', 1),
    maxUrlLength: count('maxUrlLength', 1),
    maxRepeatedSegment: count('maxRepeatedSegment', 1),
    calendarYearsWindow: count('calendarYearsWindow', 0),
    maxUrlsPerHost: count('maxUrlsPerHost', 1),
    maxVariantsPerPath: count('maxVariantsPerPath', 1),
    dropMultiplier,
    overflowSampleRate: share('overflowSampleRate'),
    contentStallMinDepth: count('contentStallMinDepth', 0),
    minUniqueContentRatio: share('minUniqueContentRatio'),
    sessionNames: new Set((options.sessionParamNames ?? DEFAULT_SESSION_PARAM_NAMES).map((name) => name.toLowerCase())),
  };
}

/** Demote above `threshold`, with a penalty growing until `threshold × multiplier`, then drop. */
function countSignal(
  code: TrapReasonCode,
  value: number,
  threshold: number,
  multiplier: number,
  unit: string,
  advice: string,
): Signal | undefined {
  if (value <= threshold) return undefined;
  const dropAbove = threshold * multiplier;
  if (value > dropAbove) {
    return { code, action: 'drop', penalty: 1, detail: `${value} ${unit} is over the drop point ${dropAbove} (demotion starts above ${threshold}); ${advice}` };
  }
  return {
    code,
    action: 'demote',
    penalty: gradedPenalty(code, value, threshold, dropAbove),
    detail: `${value} ${unit} is over ${threshold}; demoted, dropped above ${dropAbove}; ${advice}`,
  };
}

/** Like countSignal, but past the drop point a deterministic sample is kept, demoted. */
function overflowSignal(url: CanonicalUrl, code: 'host-budget' | 'path-variants', value: number, threshold: number, o: ResolvedOptions, unit: string): Signal | undefined {
  const signal = countSignal(code, value, threshold, o.dropMultiplier, unit, 'sampling the pattern');
  if (signal?.action !== 'drop' || !inSample(url.url, o.overflowSampleRate)) return signal;
  return { ...signal, action: 'demote', penalty: SAMPLED_PENALTY, detail: `${signal.detail}; kept as part of a ${o.overflowSampleRate * 100}% sample` };
}

function gradedPenalty(code: TrapReasonCode, value: number, threshold: number, dropAbove: number): number {
  const base = BASE_PENALTY[code];
  const excess = Math.min(1, Math.max(0, (value - threshold) / (dropAbove - threshold)));
  return round4(base + (MAX_DEMOTE_PENALTY - base) * excess);
}

/** Deterministic: the same URL is always in or out of the sample, in every process. */
function inSample(url: string, rate: number): boolean {
  return parseInt(urlFingerprint(url).slice(0, 8), 16) / 0x1_0000_0000 < rate;
}

function maxSegmentRepeat(path: string): number {
  const counts = new Map<string, number>();
  let max = 0;
  for (const segment of path.split('/')) {
    if (segment === '') continue;
    const n = (counts.get(segment) ?? 0) + 1;
    counts.set(segment, n);
    if (n > max) max = n;
  }
  return max;
}

const YEAR_MONTH = /^(\d{4})-(\d{1,2})(?:-\d{1,2})?$/;
const YEAR_NAMES = new Set(['year', 'yr', 'y']);

/**
 * Years in calendar-shaped parts of the URL: `/2099/12`, `/2099-12(-31)`, `?date=2099-12-01`,
 * `?year=2099`. A lone number (`/item/2048`) is not a date.
 */
function calendarYears(path: string, pairs: readonly string[]): number[] {
  const years: number[] = [];
  const segments = path.split('/');
  segments.forEach((segment, i) => {
    const next = segments[i + 1];
    if (/^\d{4}$/.test(segment) && next !== undefined && /^\d{1,2}$/.test(next) && isMonth(Number(next))) years.push(Number(segment));
    const ym = YEAR_MONTH.exec(segment);
    if (ym && isMonth(Number(ym[2]))) years.push(Number(ym[1]));
  });
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq < 0) continue;
    const value = pair.slice(eq + 1);
    const ym = YEAR_MONTH.exec(value);
    if (ym && isMonth(Number(ym[2]))) years.push(Number(ym[1]));
    else if (/^\d{4}$/.test(value) && YEAR_NAMES.has(pairNameKey(pair).toLowerCase())) years.push(Number(value));
  }
  return years;
}

function calendarSignal(url: CanonicalUrl, pairs: readonly string[], nowMs: number, window: number, multiplier: number): Signal | undefined {
  const years = calendarYears(url.path, pairs);
  if (years.length === 0) return undefined;
  const nowYear = new Date(nowMs).getUTCFullYear();
  const farthest = years.reduce((a, b) => (Math.abs(b - nowYear) > Math.abs(a - nowYear) ? b : a));
  const offset = farthest - nowYear;
  if (Math.abs(offset) <= window) return undefined;
  if (offset < 0) {
    // Archives of real past content look the same as a past-going calendar: never drop them.
    return { code: 'calendar', action: 'demote', penalty: PAST_CALENDAR_PENALTY, detail: `calendar date in ${farthest}, more than ${window} years before ${nowYear}; demoted, never dropped (archives are real content)` };
  }
  const dropAbove = window * multiplier;
  if (offset > dropAbove) {
    return { code: 'calendar', action: 'drop', penalty: 1, detail: `calendar date in ${farthest}, ${offset} years ahead of ${nowYear} (drop above ${dropAbove}); date range cap` };
  }
  return {
    code: 'calendar',
    action: 'demote',
    penalty: gradedPenalty('calendar', offset, window, dropAbove),
    detail: `calendar date in ${farthest}, ${offset} years ahead of ${nowYear} (window ${window}); demoted, dropped beyond ${dropAbove} years`,
  };
}

function sessionSignal(path: string, pairs: readonly string[], names: ReadonlySet<string>): Signal | undefined {
  const found = new Set<string>();
  for (const pair of pairs) {
    const name = pairNameKey(pair).toLowerCase();
    if (names.has(name)) found.add(name);
  }
  // Servlet-style path parameters: /cart;jsessionid=ABC123
  for (const match of path.matchAll(/;([^=;/]+)=/g)) {
    const name = (match[1] as string).toLowerCase();
    if (names.has(name)) found.add(name);
  }
  if (found.size === 0) return undefined;
  return {
    code: 'session-id',
    action: 'demote',
    penalty: BASE_PENALTY['session-id'],
    detail: `session-id parameter ${[...found].join(', ')}: every visit mints new URLs for the same page; demoted (a verified query policy can strip it)`,
  };
}

function isMonth(n: number): boolean {
  return n >= 1 && n <= 12;
}

function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}
