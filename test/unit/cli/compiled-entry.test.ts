// bin/crawler.js runs dist/ only while it is compiled from the sources as they are now: an edit,
// a new or a deleted file under src/ sends it back to the TypeScript sources (through tsx).
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
// @ts-expect-error plain JavaScript beside bin/crawler.js, without type declarations
import { compiledEntry, markBuilt, sourcesFingerprint } from '../../../bin/compiled-entry.js';

describe('compiledEntry', () => {
  let root: string;
  let folders: { sourceDir: string; distDir: string };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'compiled-entry-'));
    folders = { sourceDir: join(root, 'src'), distDir: join(root, 'dist') };
    mkdirSync(join(folders.sourceDir, 'cli'), { recursive: true });
    mkdirSync(join(folders.distDir, 'cli'), { recursive: true });
    writeFileSync(join(folders.sourceDir, 'cli', 'main.ts'), 'export const main = 1;\n');
    writeFileSync(join(folders.distDir, 'cli', 'main.js'), 'export const main = 1;\n');
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    rmSync(root, { recursive: true, force: true });
  });

  const built = (): void => markBuilt(sourcesFingerprint(folders.sourceDir), folders.distDir);
  const entry = (): string | undefined => compiledEntry('cli/main.js', folders);

  it('runs dist/ when it is stamped with the fingerprint of the sources as they are', () => {
    expect(entry()).toBeUndefined();
    built();
    expect(entry()).toBe(`file://${join(folders.distDir, 'cli', 'main.js')}`);
  });

  it('runs the sources after an edit, even one that keeps the size', () => {
    built();
    const file = join(folders.sourceDir, 'cli', 'main.ts');
    writeFileSync(file, 'export const main = 2;\n');
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    expect(entry()).toBeUndefined();
  });

  it('runs the sources when a file is added or deleted', () => {
    built();
    writeFileSync(join(folders.sourceDir, 'cli', 'new.ts'), 'export {};\n');
    expect(entry()).toBeUndefined();
    built();
    rmSync(join(folders.sourceDir, 'cli', 'new.ts'));
    expect(entry()).toBeUndefined();
  });

  it('runs the sources when dist/ lacks the entry, or when CRAWLER_RUN_SOURCES=1', () => {
    built();
    expect(compiledEntry('cli/other.js', folders)).toBeUndefined();
    vi.stubEnv('CRAWLER_RUN_SOURCES', '1');
    expect(entry()).toBeUndefined();
  });
});
