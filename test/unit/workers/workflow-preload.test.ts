// The modules every workflow run shares (WORKFLOW_PRELOAD_MODULES) must hold no per-run state:
// the SDK evaluates them once per worker thread, before any run exists, and freezes their exports.
// A module there that imported the SDK, the workflows, or kept a `let` at its top would carry one
// run's state into the next. The check follows runtime imports (type imports are erased).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WORKFLOW_PRELOAD_MODULES } from '../../../src/workers/workflow-bundle.js';

const RUNTIME_IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;

/** What a module imports at run time: relative ones as files, packages by name. */
function runtimeImportsOf(file: string): { files: string[]; packages: string[] } {
  const specifiers = [...readFileSync(file, 'utf8').matchAll(RUNTIME_IMPORT)].map((match) => match[1]!);
  return {
    files: specifiers.filter((s) => s.startsWith('.')).map((s) => path.join(path.dirname(file), s.replace(/\.js$/, '.ts'))),
    packages: specifiers.filter((s) => !s.startsWith('.')),
  };
}

/** Every file the preloaded modules reach, and the packages any of them imports. */
function preloadClosure(): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    const imports = runtimeImportsOf(file);
    imports.packages.forEach((name) => packages.add(name));
    imports.files.forEach(visit);
  };
  WORKFLOW_PRELOAD_MODULES.map((module) => module.replace(/\.js$/, '.ts')).forEach(visit);
  return { files, packages };
}

describe('the workflow modules every run shares', () => {
  it('exist', () => {
    for (const module of WORKFLOW_PRELOAD_MODULES) expect(existsSync(module.replace(/\.js$/, '.ts')), module).toBe(true);
  });

  it('import no package and nothing outside the pure folders', () => {
    const { files, packages } = preloadClosure();
    expect(files.size).toBeGreaterThan(WORKFLOW_PRELOAD_MODULES.length);
    expect([...packages]).toEqual([]);
    const outside = [...files].map((file) => path.relative('src', file)).filter((file) => !/^(domain|contracts|config)\//.test(file) || file === 'contracts/messages.ts');
    expect(outside).toEqual([]);
  });

  it('keep no mutable state at their top level', () => {
    const { files } = preloadClosure();
    const mutable = [...files].filter((file) => /^(?:export\s+)?(?:let|var)\s/m.test(readFileSync(file, 'utf8')));
    expect(mutable.map((file) => path.relative('src', file))).toEqual([]);
  });

  it('would notice a module that imports the SDK', () => {
    const imports = runtimeImportsOf('src/contracts/messages.ts');
    expect(imports.packages).toContain('@temporalio/workflow');
  });
});
