// Whether dist/ holds the compiled JavaScript of the current sources. Compiled, a `crawler`
// command loads its modules without tsx's loader hooks and starts in about two thirds of the
// time; when any file under src/ changed since the last build (its path, size or mtime), the
// sources run through tsx instead, so an edit is never masked by a stale build.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SOURCE_DIR = join(ROOT, 'src');
export const DIST_DIR = join(ROOT, 'dist');
/** Written under dist/ by bin/build.js once tsc succeeded: the fingerprint of the sources tsc read. */
const STAMP_NAME = '.built-from-sources';

/** Every file under src/ by path, size and mtime, as one hash: a few milliseconds for the whole tree. */
export function sourcesFingerprint(sourceDir = SOURCE_DIR) {
  const hash = createHash('sha256');
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else {
        const { size, mtimeMs } = statSync(full);
        hash.update(`${relative(sourceDir, full)}\0${size}\0${mtimeMs}\n`);
      }
    }
  };
  walk(sourceDir);
  return hash.digest('hex');
}

/**
 * The file URL of `relativePath` under dist/ when dist/ is built from the current sources, else
 * undefined (also when CRAWLER_RUN_SOURCES=1). The folders are the repository's unless given.
 */
export function compiledEntry(relativePath, { sourceDir = SOURCE_DIR, distDir = DIST_DIR } = {}) {
  if (process.env.CRAWLER_RUN_SOURCES === '1' || !builtFromSources({ sourceDir, distDir })) return undefined;
  try {
    const entry = join(distDir, relativePath);
    statSync(entry);
    return pathToFileURL(entry).href;
  } catch {
    return undefined;
  }
}

/** Whether dist/ is stamped with the fingerprint of the sources as they are now. */
export function builtFromSources({ sourceDir = SOURCE_DIR, distDir = DIST_DIR } = {}) {
  try {
    return readFileSync(join(distDir, STAMP_NAME), 'utf8').trim() === sourcesFingerprint(sourceDir);
  } catch {
    return false;
  }
}

/** Marks dist/ as compiled from the sources whose fingerprint was `fingerprint` when tsc began. */
export function markBuilt(fingerprint, distDir = DIST_DIR) {
  writeFileSync(join(distDir, STAMP_NAME), `${fingerprint}\n`);
}
