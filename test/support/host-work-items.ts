// Work items and claim results for the host loop's unit tests: a host's URLs, each with a
// fingerprint of its own, and what a claim of them returns.
import type { ClaimHostWorkResult, FetchUrlResult, HostWorkItem } from '../../src/contracts/activities.js';

/** A maker of `host`'s work items, numbered from 1: `item({ minHostDelayMs: 100 })`. */
export function hostWorkItems(host: string): (overrides?: Partial<HostWorkItem>) => HostWorkItem {
  let serial = 0;
  return (overrides = {}) => {
    serial += 1;
    return {
      crawlId: 'c',
      fingerprint: serial.toString(16).padStart(32, '0'),
      url: `http://${host}/p${serial}`,
      origin: `http://${host}`,
      depth: 1,
      generation: 1,
      attempt: 0,
      purpose: 'discovery',
      minHostDelayMs: 2000,
      maxConcurrentFetches: 1,
      ...overrides,
    };
  };
}

/** A claim's result: these items, the host's record empty (no politeness kept, no override, not paused). */
export function claimOf(items: HostWorkItem[], options: { released?: boolean; localBursts?: boolean } = {}): ClaimHostWorkResult {
  return {
    items,
    released: options.released ?? false,
    host: { politeness: null, delayOverrideMs: null, paused: false, quarantinedReason: null } as unknown as ClaimHostWorkResult['host'],
    ...(options.localBursts ? { localBursts: true as const } : {}),
  };
}

/** A page of `host` fetched whole (200, parsed), between these times. */
export function fetchedPage(host: string, startedAtMs: number, finishedAtMs: number): Extract<FetchUrlResult, { kind: 'fetched' }> {
  return { kind: 'fetched', status: 200, bodyKey: 'k', rawHash: 'h', bytes: 100, contentType: 'text/html', parse: true, finalUrl: `http://${host}/`, startedAtMs, finishedAtMs };
}
