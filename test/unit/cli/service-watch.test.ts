import { describe, expect, it } from 'vitest';
import { ServiceWatch, type ServiceOutage } from '../../../src/cli/service-watch.js';

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
    expect(changes[0]).toEqual([{ service: 'Postgres', sinceMs: expect.any(Number), error: 'connect ECONNREFUSED 127.0.0.1:5432' }]);
    expect(changes[0]![0]!.sinceMs).toBeGreaterThanOrEqual(beforeMs);
    postgresUp = true;
    await watch.probeAll();
    expect(changes).toHaveLength(2);
    expect(changes[1]).toEqual([]);
  });

  it('counts a probe that does not answer in time as a failure', async () => {
    const changes: ServiceOutage[][] = [];
    const watch = new ServiceWatch({ 'object store': () => new Promise<void>(() => undefined) }, (outages) => changes.push(outages), { probeTimeoutMs: 20 });
    await watch.probeAll();
    expect(changes).toEqual([[{ service: 'object store', sinceMs: expect.any(Number), error: 'object store did not answer in 20 ms' }]]);
  });
});
