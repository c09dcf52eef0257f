import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';

/** '.ts' from the sources, '.js' compiled (dist/): the workflows are bundled from whichever this process runs. */
const MODULE_EXTENSION = path.extname(fileURLToPath(import.meta.url));
export const WORKFLOWS_PATH = fileURLToPath(new URL(`../workflows/index${MODULE_EXTENSION}`, import.meta.url));
const SRC_DIR = fileURLToPath(new URL('..', import.meta.url));

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
    const bundle = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietLogger });
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
