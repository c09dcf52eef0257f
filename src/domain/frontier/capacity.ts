import { requireNumber } from './validate.js';

// Capacity arithmetic (docs/design.md, "Capacity arithmetic"), for the README and `crawler status`. Units are in the names.

const CODE = 'FRONTIER_CAPACITY_INPUT_INVALID';
const MS_PER_SECOND = 1000;

/**
 * The most pages per second politeness allows: each host serves at most `maxConcurrentPerHost`
 * requests per `perHostDelayMs`. With 10 hosts at 1 s that is 10 page/s, however many workers run.
 *
 * @param activeHosts hosts with eligible URLs, >= 0.
 * @param perHostDelayMs minimum gap between requests to one host, > 0.
 * @param maxConcurrentPerHost requests one host may have in flight, >= 1. Default 1 (docs/design.md, "Politeness").
 */
export function politenessCeilingPagesPerSecond(activeHosts: number, perHostDelayMs: number, maxConcurrentPerHost = 1): number {
  requireNumber(CODE, 'activeHosts', activeHosts, { min: 0 });
  requireNumber(CODE, 'perHostDelayMs', perHostDelayMs, { min: 0, minExclusive: true });
  requireNumber(CODE, 'maxConcurrentPerHost', maxConcurrentPerHost, { min: 1 });
  return (activeHosts * maxConcurrentPerHost * MS_PER_SECOND) / perHostDelayMs;
}

/**
 * Eligible hosts needed to sustain a rate politely: 386 page/s at 2 s per host needs 772 hosts.
 *
 * @param pagesPerSecond target rate, >= 0.
 * @param perHostDelayMs minimum gap between requests to one host, > 0.
 * @param maxConcurrentPerHost requests one host may have in flight, >= 1. Default 1.
 */
export function requiredHostsFor(pagesPerSecond: number, perHostDelayMs: number, maxConcurrentPerHost = 1): number {
  requireNumber(CODE, 'pagesPerSecond', pagesPerSecond, { min: 0 });
  requireNumber(CODE, 'perHostDelayMs', perHostDelayMs, { min: 0, minExclusive: true });
  requireNumber(CODE, 'maxConcurrentPerHost', maxConcurrentPerHost, { min: 1 });
  const hosts = (pagesPerSecond * perHostDelayMs) / (MS_PER_SECOND * maxConcurrentPerHost);
  // Float error must not turn an exact 772 into 773.
  return Math.ceil(hosts - 1e-9);
}

/**
 * Little's Law, L = λW, solved for λ: 100 concurrent requests at 500 ms mean latency give 200 page/s.
 *
 * @param concurrency requests kept in flight, >= 0.
 * @param meanLatencyMs mean time per request, > 0.
 */
export function littleLawThroughput(concurrency: number, meanLatencyMs: number): number {
  requireNumber(CODE, 'concurrency', concurrency, { min: 0 });
  requireNumber(CODE, 'meanLatencyMs', meanLatencyMs, { min: 0, minExclusive: true });
  return (concurrency * MS_PER_SECOND) / meanLatencyMs;
}

/**
 * Little's Law solved for L: the concurrency needed for a rate at a mean latency.
 *
 * @param pagesPerSecond target rate, >= 0.
 * @param meanLatencyMs mean time per request, > 0.
 */
export function littleLawConcurrency(pagesPerSecond: number, meanLatencyMs: number): number {
  requireNumber(CODE, 'pagesPerSecond', pagesPerSecond, { min: 0 });
  requireNumber(CODE, 'meanLatencyMs', meanLatencyMs, { min: 0, minExclusive: true });
  return (pagesPerSecond * meanLatencyMs) / MS_PER_SECOND;
}

/**
 * Average rate needed to fetch `pages` in `durationMs`: 1e9 pages in 30 days is about 386 page/s.
 *
 * @param pages pages to fetch, >= 0.
 * @param durationMs time allowed, > 0.
 */
export function requiredPagesPerSecond(pages: number, durationMs: number): number {
  requireNumber(CODE, 'pages', pages, { min: 0 });
  requireNumber(CODE, 'durationMs', durationMs, { min: 0, minExclusive: true });
  return (pages * MS_PER_SECOND) / durationMs;
}

/** Inputs to {@link throughputCeiling}. */
export interface ThroughputCeilingInput {
  /** Worker processes fetching, >= 0. */
  workers: number;
  /** Requests each worker keeps in flight, >= 0. */
  concurrencyPerWorker: number;
  /** Mean time per request, > 0 ms. */
  meanLatencyMs: number;
  /** Hosts with eligible URLs, >= 0. */
  activeHosts: number;
  /** Minimum gap between requests to one host, > 0 ms. */
  perHostDelayMs: number;
  /** Requests one host may have in flight, >= 1. Default 1. */
  maxConcurrentPerHost?: number;
}

/** The crawl's throughput ceiling and which limit sets it. */
export interface ThroughputCeiling {
  pagesPerSecond: number;
  /** Little's Law over all workers. */
  workersPagesPerSecond: number;
  /** Hosts / per-host delay. */
  politenessPagesPerSecond: number;
  /** The smaller of the two; ties report 'politeness', the limit more workers cannot lift. */
  limitedBy: 'workers' | 'politeness';
}

/**
 * The smallest of the worker and politeness ceilings decides throughput (docs/design.md, "Capacity arithmetic"): adding
 * workers does not help when the hosts are too few for the delay.
 */
export function throughputCeiling(input: ThroughputCeilingInput): ThroughputCeiling {
  requireNumber(CODE, 'workers', input.workers, { min: 0 });
  const workersPagesPerSecond = input.workers * littleLawThroughput(input.concurrencyPerWorker, input.meanLatencyMs);
  const politenessPagesPerSecond = politenessCeilingPagesPerSecond(input.activeHosts, input.perHostDelayMs, input.maxConcurrentPerHost);
  const limitedBy = politenessPagesPerSecond <= workersPagesPerSecond ? 'politeness' : 'workers';
  return {
    pagesPerSecond: Math.min(workersPagesPerSecond, politenessPagesPerSecond),
    workersPagesPerSecond,
    politenessPagesPerSecond,
    limitedBy,
  };
}
