import { describe, expect, it } from 'vitest';
import { ServiceWatch, describeOutage, type ServiceOutage } from '../../../src/cli/service-watch.js';

describe('ServiceWatch', () => {
  it('reports a service going down once, since its first failed probe, and its return', async () => {
    let postgresUp = true;
    const changes: ServiceOutage[][] = [];
    const watch = new ServiceWatch(
      {
        Postgres: async () => {
          if (!postgresUp) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
        },
        'object store': async () => undefined,
      },
      (outages) => changes.push(outages),
    );
    await watch.probeAll();
    expect(changes).toEqual([]);
    postgresUp = false;
    const beforeMs = Date.now();
    await watch.probeAll();
    await watch.probeAll();
    expect(changes).toHaveLength(1);
    expect(changes[0]).toEqual([{ service: 'Postgres', kind: 'unreachable', sinceMs: expect.any(Number), error: 'connect ECONNREFUSED 127.0.0.1:5432' }]);
    expect(changes[0]![0]!.sinceMs).toBeGreaterThanOrEqual(beforeMs);
    postgresUp = true;
    await watch.probeAll();
    expect(changes).toHaveLength(2);
    expect(changes[1]).toEqual([]);
  });

  it('reports a service that does not answer in time only after several timeouts in a row, since the first', async () => {
    const changes: ServiceOutage[][] = [];
    const watch = new ServiceWatch({ 'object store': () => new Promise<void>(() => undefined) }, (outages) => changes.push(outages), { probeTimeoutMs: 20, timeoutsBeforeReport: 3 });
    const beforeMs = Date.now();
    await watch.probeAll();
    await watch.probeAll();
    expect(changes).toEqual([]);
    await watch.probeAll();
    expect(changes).toEqual([
      [{ service: 'object store', kind: 'not answering', sinceMs: expect.any(Number), error: 'object store did not answer in 20 ms, 3 probes in a row: overloaded or hung' }],
    ]);
    expect(changes[0]![0]!.sinceMs).toBeGreaterThanOrEqual(beforeMs);
    expect(changes[0]![0]!.sinceMs).toBeLessThan(beforeMs + 20);
    expect(describeOutage(changes[0]![0]!)).toMatch(/^object store not answering since \d{4}-.*Z \(object store did not answer in 20 ms, 3 probes in a row: overloaded or hung\), the crawl waits for it$/);
  });

  it('forgets slow probes once one answers: a busy moment is not an outage', async () => {
    let slow = true;
    const changes: ServiceOutage[][] = [];
    const watch = new ServiceWatch({ Postgres: () => (slow ? new Promise<void>(() => undefined) : Promise.resolve()) }, (outages) => changes.push(outages), { probeTimeoutMs: 20, timeoutsBeforeReport: 2 });
    await watch.probeAll();
    slow = false;
    await watch.probeAll();
    slow = true;
    await watch.probeAll();
    expect(changes).toEqual([]);
    await watch.probeAll();
    expect(changes.map((outages) => outages.map((outage) => outage.kind))).toEqual([['not answering']]);
  });
});
