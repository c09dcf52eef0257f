// vitest globalSetup of the integration project: one fresh real stack (Temporal dev server,
// Postgres, MinIO) for the whole run, provided to test files as inject('stack').
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureStack, findTool, projectRoot, stopStack, type StackEndpoints } from '../../src/stack/index.js';
import { stopTemporalCluster } from './temporal-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's stack: every service managed, on loopback, fresh for this run. */
    stack: StackEndpoints;
    /** The `temporal` CLI that runs the dev server (for TestWorkflowEnvironment existing-path, `temporal workflow show`). */
    temporalBinary: string;
    /** The stack's data folder (logs under temporal/, postgres/, minio/). */
    stackDataDir: string;
  }
}

/** Dynamic config for the tests' dev server: continue-as-new after 200 events, so tests reach it quickly. */
export const testTemporalDynamicConfig = { 'limit.historyCount.suggestContinueAsNew': 200 };

/** The test data folder; `stack-<pid>` folders below it belong to the vitest process with that pid. */
export function testDataRoot(): string {
  return join(projectRoot(), '.test-data');
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Stops and deletes stacks left by earlier runs. A folder whose owning process still lives is
 * skipped: several people may run tests in one checkout at once.
 */
export async function removeStaleStacks(root: string): Promise<void> {
  if (!existsSync(root)) return;
  for (const name of readdirSync(root)) {
    const match = /^stack-(?:.*-)?(\d+)$/.exec(name);
    if (match === null) continue;
    const ownerPid = Number(match[1]);
    if (ownerPid !== process.pid && isAlive(ownerPid)) continue;
    const dataDir = join(root, name);
    await stopStack({ dataDir }).catch(() => undefined);
    // The cluster test's Temporal server, when that run died before stopping it.
    await stopTemporalCluster(join(dataDir, 'temporal-cluster')).catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The environment without the variables that select external services: tests own their stack. */
export function withoutExternalServices(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  for (const name of ['TEMPORAL_ADDRESS', 'DATABASE_URL', 'S3_ENDPOINT', 'S3_ACCESS_KEY', 'S3_SECRET_KEY', 'S3_BUCKET', 'S3_REGION']) delete copy[name];
  return copy;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = testDataRoot();
  await removeStaleStacks(root);
  mkdirSync(root, { recursive: true });
  const dataDir = join(root, `stack-${process.pid}`);
  const started = Date.now();
  const stack = await ensureStack({
    dataDir,
    env: withoutExternalServices(process.env),
    temporalDynamicConfig: testTemporalDynamicConfig,
    log: (line) => console.log(`[stack] ${line}`),
  });
  console.log(`[stack] up in ${Date.now() - started} ms; Temporal UI ${stack.temporal.uiUrl ?? '(none)'}; data ${dataDir}`);
  const temporalBinary = findTool('temporal');
  if (temporalBinary === undefined) throw new Error('the temporal binary vanished after the stack started');
  project.provide('stack', stack);
  project.provide('temporalBinary', temporalBinary);
  project.provide('stackDataDir', dataDir);
  // Data stays for a post-mortem (logs); the next run deletes it.
  return async () => {
    await stopStack({ dataDir });
  };
}
