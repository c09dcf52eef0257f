import { accessSync, constants, existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StackError } from './stack-error.js';

export type ToolName = 'temporal' | 'minio' | 'initdb' | 'pg_ctl' | 'postgres';

export interface ToolPathOptions {
  /** PATH-style list searched first. Default: process.env.PATH. */
  searchPath?: string;
  /** Project-local tools folder searched second. Default: `<project root>/.tools/bin`. */
  toolsBinDir?: string;
  /** Folder holding Debian's versioned Postgres installs, searched last. Default: '/usr/lib/postgresql'. */
  postgresLibDir?: string;
}

/** The folder holding package.json above this module (works from src/ under tsx and from dist/). */
export function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Debian's `<lib>/<major>/bin` folders, newest major first. */
function postgresVersionDirs(libDir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(libDir);
  } catch {
    return [];
  }
  return entries
    .filter((name) => /^\d+(\.\d+)?$/.test(name))
    .sort((a, b) => Number(b) - Number(a))
    .map((name) => join(libDir, name, 'bin'));
}

/** Where a tool is: PATH, else .tools/bin, else (Postgres tools) /usr/lib/postgresql/<newest>/bin. */
export function findTool(name: ToolName, options: ToolPathOptions = {}): string | undefined {
  const searchPath = options.searchPath ?? process.env.PATH ?? '';
  const dirs = [
    ...searchPath.split(delimiter).filter((dir) => dir !== ''),
    options.toolsBinDir ?? join(projectRoot(), '.tools', 'bin'),
    ...(name === 'temporal' || name === 'minio' ? [] : postgresVersionDirs(options.postgresLibDir ?? '/usr/lib/postgresql')),
  ];
  for (const dir of dirs) {
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

const installHint = 'Run `npm run tools` (scripts/install-tools.sh) to install it, or put it on PATH.';

/** Like findTool, but a missing tool is a StackError naming the fix. */
export function requireTool(name: ToolName, options: ToolPathOptions = {}): string {
  const found = findTool(name, options);
  if (found === undefined) {
    throw new StackError(`The '${name}' binary was not found on PATH, in .tools/bin or in /usr/lib/postgresql/*/bin`, {
      code: 'STACK_TOOL_MISSING',
      service: 'tools',
      hint: installHint,
    });
  }
  return found;
}

/**
 * The one folder holding initdb, pg_ctl and postgres. They must come from the same install:
 * pg_ctl of one major version cannot start another's cluster. PATH entries are often symlinks
 * (/usr/local/bin/pg_ctl), so the real folder is used.
 */
export function requirePostgresBinDir(options: ToolPathOptions = {}): string {
  const pgCtl = requireTool('pg_ctl', options);
  const dir = dirname(realpathSync(pgCtl));
  for (const sibling of ['initdb', 'postgres'] as const) {
    if (!isExecutableFile(join(dir, sibling))) {
      throw new StackError(`Found ${pgCtl} but no '${sibling}' beside it in ${dir}`, {
        code: 'STACK_TOOL_MISSING',
        service: 'tools',
        hint: 'Install the PostgreSQL server package (Debian: apt-get install -y postgresql), then `npm run tools`.',
      });
    }
  }
  return dir;
}
