#!/usr/bin/env node
// The `crawler` command. Runs dist/ when `npm run build` compiled it from the current sources
// (bin/compiled-entry.js), else the TypeScript sources through tsx, so a clone works without a build step.
import { compiledEntry } from './compiled-entry.js';

const compiled = compiledEntry('cli/main.js');
let main;
if (compiled !== undefined) {
  ({ main } = await import(compiled));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
