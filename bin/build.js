#!/usr/bin/env node
// `npm run build`: compiles src/ to dist/ (tsconfig.build.json) and stamps it with the fingerprint
// of the sources as tsc found them, so bin/crawler.js runs dist/ only while they are unchanged.
// `npm run build -- --if-stale` (the quick start, the bench) compiles only when dist/ is not current.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { DIST_DIR, builtFromSources, markBuilt, sourcesFingerprint } from './compiled-entry.js';

if (process.argv.includes('--if-stale') && builtFromSources()) process.exit(0);
console.error('build: compiling src/ into dist/');

// Taken before tsc reads anything: an edit made during the build leaves the stamp stale.
const fingerprint = sourcesFingerprint();
rmSync(DIST_DIR, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const { status } = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
if (status !== 0) {
  console.error('build: tsc failed; bin/crawler.js runs the TypeScript sources through tsx until a build succeeds');
  process.exit(status ?? 1);
}
markBuilt(fingerprint);
