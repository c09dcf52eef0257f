import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';

/** '.ts' from the sources, '.js' compiled (dist/): the workflows are bundled from whichever this process runs. */
const MODULE_EXTENSION = path.extname(fileURLToPath(import.meta.url));
export const WORKFLOWS_PATH = fileURLToPath(new URL(`../workflows/index${MODULE_EXTENSION}`, import.meta.url));
const SRC_DIR = fileURLToPath(new URL('..', import.meta.url));

/**
 * Modules the workflows import that hold no state: evaluated once per worker thread and shared by
 * every run (the SDK's `preloadModules`), where each run would otherwise evaluate them again. In a
 * wide crawl most host runs are short, and evaluating the bundle's modules was a fixed cost of
 * each. Only pure code belongs here (src/domain, the contracts' plain data, the politeness
 * config): the SDK freezes what they export, and a module that imports '@temporalio/workflow'
 * would share the SDK's per-run state. test/unit/workers/workflow-preload.test.ts checks the list.
 */
export const WORKFLOW_PRELOAD_MODULES: readonly string[] = [
  'domain/failures/index',
  'domain/politeness/index',
  'domain/render/index',
  'domain/robots/index',
  'domain/text/index',
  'domain/input-error',
  'contracts/activities',
  'contracts/describe-crawl-end',
  'contracts/describe-waits',
  'contracts/fetch-followup',
  'config/politeness-config',
].map((module) => path.join(SRC_DIR, `${module}${MODULE_EXTENSION}`));

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const files = await Promise.all(
    entries.map((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return sourceFiles(full);
      return Promise.resolve(entry.name.endsWith(MODULE_EXTENSION) ? [full] : []);
    }),
  );
  return files.flat().sort();
}

/**
 * The workflow bundle, built once per version of the source and cached under `cacheDir`:
 * bundling takes seconds, and every CLI command that runs a worker would otherwise pay it.
 */
export async function loadWorkflowBundle(cacheDir: string): Promise<{ code: string }> {
  const hash = createHash('sha256');
  for (const file of await sourceFiles(SRC_DIR)) {
    hash.update(path.relative(SRC_DIR, file));
    hash.update(await readFile(file));
  }
  const key = hash.digest('hex').slice(0, 16);
  const cachePath = path.join(cacheDir, `workflow-bundle-${key}.js`);
  try {
    return { code: await readFile(cachePath, 'utf8') };
  } catch {
    const bundle = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, preloadModules: [...WORKFLOW_PRELOAD_MODULES], logger: quietLogger });
    // The data folder's: its user's alone.
    await mkdir(cacheDir, { recursive: true, mode: 0o700 });
    const temp = `${cachePath}.${process.pid}.tmp`;
    await writeFile(temp, bundle.code, { mode: 0o600 });
    await rename(temp, cachePath);
    return bundle;
  }
}

const noop = (): void => undefined;
const quietLogger = { trace: noop, debug: noop, info: noop, warn: noop, error: (message: string) => console.error(message), log: noop };
