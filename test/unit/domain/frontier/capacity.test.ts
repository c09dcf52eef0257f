import { describe, it, expect } from 'vitest';
import {
  politenessCeilingPagesPerSecond,
  requiredHostsFor,
  littleLawThroughput,
  littleLawConcurrency,
  requiredPagesPerSecond,
  throughputCeiling,
} from '../../../../src/domain/frontier/index.js';

const DAY_MS = 86_400_000;

describe('capacity arithmetic (docs/design.md, "Capacity arithmetic")', () => {
  it('1e9 pages in 30 days needs about 386 page/s', () => {
    const rate = requiredPagesPerSecond(1_000_000_000, 30 * DAY_MS);
    expect(Math.round(rate)).toBe(386);
    expect(rate).toBeCloseTo(385.8, 1);
  });

  it('386 page/s at a 2 s per-host delay needs at least 772 eligible hosts', () => {
    expect(requiredHostsFor(386, 2000)).toBe(772);
    expect(requiredHostsFor(requiredPagesPerSecond(1e9, 30 * DAY_MS), 2000)).toBe(772);
    expect(requiredHostsFor(386.1, 2000)).toBe(773);
    expect(requiredHostsFor(386, 2000, 2)).toBe(386);
  });

  it("Little's Law: 100 concurrent requests at 500 ms give 200 page/s, and back", () => {
    expect(littleLawThroughput(100, 500)).toBe(200);
    expect(2 * littleLawThroughput(100, 500)).toBe(400);
    expect(littleLawConcurrency(200, 500)).toBe(100);
  });

  it('10 hosts at 1 s allow 10 page/s, whatever the workers (exercise F)', () => {
    expect(politenessCeilingPagesPerSecond(10, 1000)).toBe(10);
    expect(politenessCeilingPagesPerSecond(772, 2000)).toBe(386);
    expect(politenessCeilingPagesPerSecond(10, 1000, 3)).toBe(30);
    // 10,000 pages in 10 minutes needs 16.7 page/s: more workers cannot reach it on 10 hosts.
    const needed = requiredPagesPerSecond(10_000, 10 * 60_000);
    expect(needed).toBeCloseTo(16.7, 1);
    const ceiling = throughputCeiling({ workers: 8, concurrencyPerWorker: 100, meanLatencyMs: 500, activeHosts: 10, perHostDelayMs: 1000 });
    expect(ceiling).toEqual({ pagesPerSecond: 10, workersPagesPerSecond: 1600, politenessPagesPerSecond: 10, limitedBy: 'politeness' });
    expect(ceiling.pagesPerSecond).toBeLessThan(needed);
  });

  it('reports workers as the limit when hosts are plentiful', () => {
    const ceiling = throughputCeiling({ workers: 2, concurrencyPerWorker: 100, meanLatencyMs: 500, activeHosts: 10_000, perHostDelayMs: 2000 });
    expect(ceiling).toMatchObject({ pagesPerSecond: 400, limitedBy: 'workers', politenessPagesPerSecond: 5000 });
  });

  it.each([
    [() => politenessCeilingPagesPerSecond(10, 0), 'perHostDelayMs'],
    [() => politenessCeilingPagesPerSecond(-1, 1000), 'activeHosts'],
    [() => requiredHostsFor(100, 1000, 0), 'maxConcurrentPerHost'],
    [() => littleLawThroughput(100, 0), 'meanLatencyMs'],
    [() => requiredPagesPerSecond(100, -5), 'durationMs'],
  ])('rejects nonsense input with a typed error (%#: %s)', (call, field) => {
    expect(call).toThrow(expect.objectContaining({ code: 'FRONTIER_CAPACITY_INPUT_INVALID', field }));
  });
});
