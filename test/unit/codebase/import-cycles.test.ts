// No module in src/ reaches itself through its imports, type imports included: a cycle makes
// load order matter and lets two modules that should be layered change only together. Every
// relative specifier counts (import, export ... from, import()), so the test needs no compiler.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

const SPECIFIER = /(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;

/** The src/ files a module imports: `./x.js` is `./x.ts` on disk. */
function importsOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(SPECIFIER)]
    .map((match) => path.join(path.dirname(file), match[1]!.replace(/\.js$/, '.ts')))
    .filter((target) => existsSync(target));
}

/** Each cycle once, as the files around it from its first file back to that file. */
function importCycles(files: readonly string[], edges: (file: string) => readonly string[]): string[][] {
  const done = new Set<string>();
  const onPath: string[] = [];
  const cycles = new Map<string, string[]>();
  const visit = (file: string): void => {
    const at = onPath.indexOf(file);
    if (at >= 0) {
      const loop = onPath.slice(at);
      const start = loop.indexOf([...loop].sort()[0]!);
      const rotated = [...loop.slice(start), ...loop.slice(0, start)];
      cycles.set(rotated.join(' -> '), [...rotated, rotated[0]!]);
      return;
    }
    if (done.has(file)) return;
    onPath.push(file);
    for (const next of edges(file)) visit(next);
    onPath.pop();
    done.add(file);
  };
  for (const file of files) visit(file);
  return [...cycles.values()];
}

describe('src/ imports', () => {
  it('form no cycle', () => {
    const files = sourceFiles('src');
    expect(files.length).toBeGreaterThan(100);
    const graph = new Map(files.map((file) => [file, importsOf(file)]));
    expect(importCycles(files, (file) => graph.get(file) ?? []).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it('finds a cycle through any number of modules, once', () => {
    const graph: Record<string, string[]> = { a: ['b'], b: ['c', 'd'], c: ['a'], d: [], e: ['e'] };
    expect(importCycles(Object.keys(graph), (file) => graph[file] ?? [])).toEqual([['a', 'b', 'c', 'a'], ['e', 'e']]);
  });
});
