import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StackError } from '../../../src/stack/stack-error.js';
import { findTool, projectRoot, requirePostgresBinDir, requireTool } from '../../../src/stack/tool-paths.js';

const root = mkdtempSync(join(tmpdir(), 'tool-paths-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function executable(path: string, mode = 0o755): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, mode);
  return path;
}

const pathDir = join(root, 'path');
const toolsBinDir = join(root, 'tools');
const postgresLibDir = join(root, 'lib');
mkdirSync(pathDir, { recursive: true });

describe('findTool', () => {
  it('prefers PATH, then the tools folder', () => {
    const inTools = executable(join(toolsBinDir, 'temporal'));
    expect(findTool('temporal', { searchPath: pathDir, toolsBinDir, postgresLibDir })).toBe(inTools);
    const onPath = executable(join(pathDir, 'temporal'));
    expect(findTool('temporal', { searchPath: pathDir, toolsBinDir, postgresLibDir })).toBe(onPath);
  });

  it('skips files that are not executable', () => {
    executable(join(pathDir, 'minio'), 0o644);
    expect(findTool('minio', { searchPath: pathDir, toolsBinDir, postgresLibDir })).toBeUndefined();
  });

  it("finds Postgres tools in Debian's newest versioned folder, by number not by text", () => {
    executable(join(postgresLibDir, '9.6', 'bin', 'initdb'));
    const newest = executable(join(postgresLibDir, '16', 'bin', 'initdb'));
    executable(join(postgresLibDir, '15', 'bin', 'initdb'));
    expect(findTool('initdb', { searchPath: pathDir, toolsBinDir, postgresLibDir })).toBe(newest);
  });

  it('does not look for Temporal or MinIO in the Postgres folders', () => {
    executable(join(postgresLibDir, '16', 'bin', 'minio'));
    expect(findTool('minio', { searchPath: '', toolsBinDir, postgresLibDir })).toBeUndefined();
  });
});

describe('requireTool', () => {
  it('raises a tools StackError that says how to install', () => {
    let caught: unknown;
    try {
      requireTool('postgres', { searchPath: '', toolsBinDir: join(root, 'none'), postgresLibDir: join(root, 'none') });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(StackError);
    expect(caught).toMatchObject({ code: 'STACK_TOOL_MISSING', service: 'tools' });
    expect((caught as StackError).hint).toContain('npm run tools');
  });
});

describe('requirePostgresBinDir', () => {
  it('follows a PATH symlink to the install that holds all three programs', () => {
    const install = join(root, 'pg17', 'bin');
    for (const name of ['pg_ctl', 'initdb', 'postgres']) executable(join(install, name));
    const linkDir = join(root, 'links');
    mkdirSync(linkDir);
    symlinkSync(join(install, 'pg_ctl'), join(linkDir, 'pg_ctl'));
    expect(requirePostgresBinDir({ searchPath: linkDir, toolsBinDir, postgresLibDir: join(root, 'none') })).toBe(install);
  });

  it('refuses a pg_ctl without its siblings', () => {
    const lonely = join(root, 'lonely');
    executable(join(lonely, 'pg_ctl'));
    expect(() => requirePostgresBinDir({ searchPath: lonely, toolsBinDir, postgresLibDir: join(root, 'none') })).toThrow(/initdb/);
  });
});

describe('projectRoot', () => {
  it('is the folder with package.json above the stack module', () => {
    expect(projectRoot()).toBe(join(import.meta.dirname, '..', '..', '..'));
  });
});
