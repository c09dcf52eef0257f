// Parent side of the test web process (web-child.ts): start it, ask it for the figures of its
// request log, clear the log between crawlers, close it.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { DocTreesWebOptions, GenerateWebOptions } from '../../test/support/test-web/index.js';
import type { WebFigures } from './web-figures.js';

/** A generated web, or documentation trees served as they are. */
export type BenchWebOptions = GenerateWebOptions | { docTrees: DocTreesWebOptions };

export interface WebChildReady {
  type: 'ready';
  port: number;
  hosts: number;
  /** Pages generated (including disallowed ones). */
  pages: number;
  seeds: string[];
  /** Allowed pages reachable from the seeds: what a complete, robots-abiding crawl fetches. */
  expected: number;
  disallowed: number;
}

export type WebChildRequest =
  | { type: 'figures'; id: number; minDelayMs: number }
  | { type: 'clear'; id: number }
  | { type: 'close'; id: number };

export type WebChildReply =
  | { type: 'figures'; id: number; figures: WebFigures }
  | { type: 'cleared'; id: number }
  | { type: 'closed'; id: number };

export interface WebProcess {
  readonly pid: number;
  readonly ready: WebChildReady;
  figures(minDelayMs: number): Promise<WebFigures>;
  clearLog(): Promise<void>;
  close(): Promise<void>;
}

const CHILD = fileURLToPath(new URL('./web-child.ts', import.meta.url));
const RUN_TS = fileURLToPath(new URL('../../bin/run-ts.js', import.meta.url));

export async function startWebProcess(options: BenchWebOptions, startTimeoutMs = 300_000): Promise<WebProcess> {
  const child: ChildProcess = fork(RUN_TS, [CHILD], {
    env: { ...process.env, BENCH_WEB_OPTIONS: JSON.stringify(options) },
    // A big web holds every page body and a listener per host.
    execArgv: ['--max-old-space-size=4096'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, (reply: WebChildReply) => void>();
  let nextId = 1;
  const ready = await new Promise<WebChildReady>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`test web did not start within ${startTimeoutMs} ms`)), startTimeoutMs);
    child.once('exit', (code) => reject(new Error(`test web exited with code ${code} before it was ready`)));
    child.on('message', (raw) => {
      const message = raw as WebChildReady | WebChildReply;
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolve(message);
        return;
      }
      pending.get(message.id)?.(message);
      pending.delete(message.id);
    });
  });
  const ask = <T extends WebChildReply['type']>(request: Omit<WebChildRequest, 'id'>): Promise<Extract<WebChildReply, { type: T }>> =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, (reply) => resolve(reply as Extract<WebChildReply, { type: T }>));
      child.send({ ...request, id } as WebChildRequest);
    });
  let closing: Promise<void> | undefined;
  return {
    pid: child.pid ?? 0,
    ready,
    figures: async (minDelayMs) => (await ask<'figures'>({ type: 'figures', minDelayMs } as Omit<WebChildRequest, 'id'>)).figures,
    clearLog: async () => void (await ask<'cleared'>({ type: 'clear' })),
    close: () =>
      (closing ??= (async () => {
        if (child.exitCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        child.send({ type: 'close', id: nextId++ });
        await exited;
        clearTimeout(timer);
      })()),
  };
}
