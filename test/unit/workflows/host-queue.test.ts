// The host workflow's state machine is a plain class: its politeness decisions are tested here
// without a server; the workflow tests cover the wiring.
import { describe, expect, it } from 'vitest';
import type { HostWorkItem } from '../../../src/activities/contracts.js';
import { HostQueue } from '../../../src/workflows/host-queue.js';

const item = (overrides: Partial<HostWorkItem> = {}): HostWorkItem => ({
  crawlId: 'c',
  fingerprint: '0'.repeat(32),
  url: 'http://h.example/',
  origin: 'http://h.example',
  depth: 0,
  generation: 1,
  attempt: 0,
  purpose: 'discovery',
  minHostDelayMs: 500,
  maxConcurrentFetches: 1,
  ...overrides,
});
const noJitter = () => 0.5;

describe('HostQueue', () => {
  it('takes the strictest delay: the operator override first, else the crawl, and robots Crawl-delay on top', () => {
    const queue = HostQueue.fresh('h.example');
    expect(queue.policyFor(item()).minDelayMs).toBe(500);
    queue.robotsCrawlDelayMs = { 'http://h.example': 2000, 'https://h.example': 3000 };
    expect(queue.policyFor(item()).crawlDelayMs).toBe(3000);
    queue.delayOverrideMs = 100;
    expect(queue.policyFor(item()).minDelayMs).toBe(100);
  });

  it('starts the next request only after the politeness delay from the end of the last one', () => {
    const queue = HostQueue.fresh('h.example');
    queue.queue.push(item(), item({ fingerprint: '1'.repeat(32) }));
    expect(queue.canStartAt(1_000)).toBe(true);
    queue.queue.shift();
    queue.noteRequestStarted(1_000, item());
    expect(queue.canStartAt(1_001)).toBe(false); // one in flight
    queue.noteOutcome({ kind: 'response', startedAtMs: 1_000, finishedAtMs: 1_020, status: 200 }, item(), noJitter, 1_020);
    expect(queue.inFlight).toBe(0);
    expect(queue.canStartAt(1_400)).toBe(false);
    expect(queue.nextFetchAtMs(1_400)).toBeGreaterThanOrEqual(1_520);
    expect(queue.canStartAt(queue.nextFetchAtMs(1_400))).toBe(true);
  });

  it('holds everything while paused', () => {
    const queue = HostQueue.fresh('h.example');
    queue.queue.push(item());
    queue.paused = true;
    expect(queue.canStartAt(10_000)).toBe(false);
  });

  it('carries queue, politeness, robots and operator settings to the next run as JSON', () => {
    const queue = HostQueue.fresh('h.example');
    queue.queue.push(item());
    queue.noteRequestStarted(5_000, item());
    queue.noteOutcome({ kind: 'response', startedAtMs: 5_000, finishedAtMs: 5_100, status: 429, retryAfterAtMs: 60_000 }, item(), noJitter, 5_100);
    queue.robotsFreshUntilMs['http://h.example'] = 99_000;
    queue.delayOverrideMs = 700;
    const next = new HostQueue(JSON.parse(JSON.stringify(queue.snapshotForNextRun())));
    expect(next.run).toBe(2);
    expect(next.queue).toEqual(queue.queue);
    expect(next.delayOverrideMs).toBe(700);
    expect(next.robotsFresh('http://h.example', 98_000)).toBe(true);
    expect(next.nextFetchAtMs(6_000)).toBeGreaterThanOrEqual(60_000);
  });
});
