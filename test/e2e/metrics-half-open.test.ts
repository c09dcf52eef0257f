// A worker's metrics port must not be a way to starve the worker: 400 half-open requests held
// against it (reopened as the server drops them) leave the worker's descriptors to its fetches,
// Postgres and Temporal, and a crawl it runs meanwhile finishes whole. The worker runs with a
// descriptor limit a little above what it uses at rest, as a container with a low limit would,
// and asks scrapers for a bearer token (--metrics-token-file).
import { execFileSync, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePorts } from '../../src/stack/free-port.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { spawnWorkerProcess, stopProcess } from '../support/crawler-process.js';
import { flatWeb } from '../support/flat-web.js';
import { startTestWeb, type TestWeb } from '../support/test-web/index.js';
import { waitFor } from '../support/wait-for.js';

const HALF_OPEN = 400;
const TOKEN = 'metrics-token-for-the-half-open-test';
/** Descriptors the worker may open beyond those it holds at rest: room for a crawl, not for 400 more sockets. */
const HEADROOM_FDS = 150;

/** Keeps `count` connections open on `port`, each with a request's first header line and no end; one the server closes is opened again. */
function holdHalfOpen(port: number, count: number): { open: () => number; stop: () => void } {
  const sockets = new Set<Socket>();
  let stopped = false;
  const openOne = (): void => {
    if (stopped) return;
    const socket = connect(port, '127.0.0.1');
    sockets.add(socket);
    socket.on('connect', () => socket.write('GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n'));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      if (!stopped) setTimeout(openOne, 250);
    });
  };
  for (let i = 0; i < count; i += 1) openOne();
  return {
    open: () => [...sockets].filter((socket) => !socket.connecting && !socket.destroyed).length,
    stop: () => {
      stopped = true;
      for (const socket of sockets) socket.destroy();
    },
  };
}

const openDescriptors = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length;

describe('a worker whose metrics port is held by 400 half-open requests', () => {
  let harness: Harness;
  let web: TestWeb;
  let worker: ChildProcess;
  let metricsUrl: string;
  let attack: ReturnType<typeof holdHalfOpen> | undefined;
  let tokenDir: string | undefined;
  const scrape = async (authorization = `Bearer ${TOKEN}`): Promise<{ status: number; text: string }> => {
    const response = await request(metricsUrl, { headers: { authorization } });
    return { status: response.statusCode, text: await response.body.text() };
  };
  const site = flatWeb({ base: '127.95.0.1', hosts: 3, pagesPerHost: 8 });

  beforeAll(async () => {
    web = await startTestWeb({ hosts: site.specs });
    harness = await createHarness('e2e-metrics-half-open');
    const [port] = await findFreePorts(1);
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    tokenDir = await mkdtemp(path.join(tmpdir(), 'metrics-token-'));
    await writeFile(path.join(tokenDir, 'token'), `${TOKEN}\n`, { mode: 0o600 });
    worker = spawnWorkerProcess(harness, {
      label: 'half-open worker',
      extraArgs: ['--metrics-port', String(port), '--metrics-token-file', path.join(tokenDir, 'token'), '--max-database-connections', '10'],
    });
    await waitFor(() => scrape().then(({ status }) => status === 200, () => false), (up) => up, { timeoutMs: 60_000, what: 'the metrics endpoint' });
    const limit = openDescriptors(worker.pid!) + HEADROOM_FDS;
    execFileSync('prlimit', ['--pid', String(worker.pid), `--nofile=${limit}:${limit}`]);
    attack = holdHalfOpen(port!, HALF_OPEN);
    await sleep(2_000);
  }, 180_000);

  afterAll(async () => {
    attack?.stop();
    if (worker) await stopProcess(worker);
    await harness?.close();
    await web?.close();
    if (tokenDir) await rm(tokenDir, { recursive: true, force: true });
  });

  it('keeps the worker fetching, storing and talking to Postgres and Temporal: the crawl finishes whole', async () => {
    const summary = await harness.runCrawl({ crawlId: `e2e-metrics-half-open-${Date.now()}`, seeds: site.allPageUrls(web.port), config: { minHostDelayMs: 50 } });
    expect(summary.state).toBe('finished');
    expect(summary.pagesFetched).toBe(site.allPageUrls(web.port).length);
    expect(summary.errorsByType).toEqual({});
    // The server kept only a few of the 400, and the worker held its descriptors throughout.
    expect(attack!.open()).toBeLessThan(HALF_OPEN);
    expect(worker.exitCode).toBeNull();
  }, 120_000);

  it('serves a scrape with the token again once the half-open requests go, and none without it', async () => {
    attack!.stop();
    const served = await waitFor(() => scrape().catch(() => ({ status: 0, text: '' })), ({ text }) => text.includes('crawler_fetches_total'), { timeoutMs: 30_000, what: 'a scrape after the attack' });
    expect(served.status).toBe(200);
    expect((await scrape('Bearer not-the-token')).status).toBe(401);
    expect((await scrape('')).status).toBe(401);
  });
});
