// The worker's Temporal runtime: its SDK metrics exporter listens where the worker says it does, or
// the worker does not start (it would otherwise run on the SDK's default runtime: the SDK's own
// signal handling, no JSON log, no SDK metrics). The runtime is per process: a fresh one per file.
import { createServer } from 'node:net';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { installWorkerRuntime } from '../../../src/workers/crawler-worker.js';
import { WorkerStartError } from '../../../src/workers/worker-start-error.js';

describe('installWorkerRuntime', () => {
  it('fails, naming the address, when the exporter cannot bind a port (after three tries)', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
    const port = (holder.address() as { port: number }).port;
    let tries = 0;
    try {
      const install = installWorkerRuntime({ logLevel: 'ERROR', logFormat: 'text', sdkMetrics: true, sdkMetricsPort: async () => (tries += 1, port) });
      await expect(install).rejects.toBeInstanceOf(WorkerStartError);
      await expect(install).rejects.toMatchObject({ code: 'WORKER_SDK_METRICS_BIND_FAILED', message: expect.stringContaining(`127.0.0.1:${port}`) });
      expect(tries).toBe(3);
    } finally {
      holder.close();
    }
  });

  it('then installs with the exporter on a free port, which serves the SDK metrics; a second install keeps the first', async () => {
    const address = await installWorkerRuntime({ logLevel: 'ERROR', logFormat: 'text', sdkMetrics: true });
    expect(address).toMatch(/^127\.0\.0\.1:\d+$/);
    const response = await request(`http://${address}/metrics`);
    await response.body.dump();
    expect(response.statusCode).toBe(200);
    expect(await installWorkerRuntime({ logLevel: 'ERROR', logFormat: 'text', sdkMetrics: true })).toBeUndefined();
  });
});
