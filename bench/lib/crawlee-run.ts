// Parent side of crawlee-child.ts: runs Crawlee on the benchmark's web in a child process and
// samples its memory and CPU like every other process of the run.
import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CrawleeChildOptions, CrawleeChildResult } from './crawlee-child.js';
import { ReapedChildrenCpu } from './child-cpu.js';
import { ProcessSampler, type ProcessFigures, type TrackedProcess } from './proc-sampler.js';

const CHILD = fileURLToPath(new URL('./crawlee-child.ts', import.meta.url));
const RUN_TS = fileURLToPath(new URL('../../bin/run-ts.js', import.meta.url));

export interface CrawleeRun {
  result: CrawleeChildResult;
  processes: ProcessFigures[];
  /** Fork to exit, seconds: what a user of a Crawlee script waits, its start-up included. */
  processWallSeconds: number;
  /** The child's CPU from its reaped times, seconds (exact, where the sampler's last read is up to 0.5 s old). */
  cpuSeconds: number;
}

export async function runCrawlee(options: CrawleeChildOptions, storageDir: string, alsoTrack: readonly TrackedProcess[]): Promise<CrawleeRun> {
  // Beside the storage folder, which Crawlee purges on start.
  mkdirSync(dirname(storageDir), { recursive: true });
  const optionsFile = `${storageDir}.options.json`;
  writeFileSync(optionsFile, JSON.stringify(options));
  const cpu = new ReapedChildrenCpu();
  const forkedAt = performance.now();
  const child = fork(RUN_TS, [CHILD], {
    env: {
      ...process.env,
      // A file, not the variable itself: 10,000 seeds are past the kernel's limit on one environment string (E2BIG).
      BENCH_CRAWLEE_OPTIONS_FILE: optionsFile,
      CRAWLEE_STORAGE_DIR: storageDir,
      CRAWLEE_PERSIST_STORAGE: options.persistStorage === true ? 'true' : 'false',
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const sampler = new ProcessSampler();
  sampler.track([{ name: 'crawlee', pid: child.pid ?? 0 }, ...alsoTrack]);
  sampler.start();
  const result = await new Promise<CrawleeChildResult>((resolve, reject) => {
    child.once('message', (message) => resolve(message as CrawleeChildResult));
    child.once('exit', (code) => reject(new Error(`crawlee child exited with code ${code} before reporting`)));
  });
  const processes = sampler.stop();
  await new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())));
  return { result, processes, processWallSeconds: (performance.now() - forkedAt) / 1000, cpuSeconds: cpu.seconds() };
}
