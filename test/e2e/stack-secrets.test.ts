// What the stack leaves readable: `crawler stack up --json` redacts the Postgres password and the
// object store's keys as the text form does (they are printed only on --show-secrets), and the
// data folder the stack made for this run, with everything under it (bodies, temporal.db, logs,
// stack.json) and a worker's bundle cache, is private to its user.
import { lstatSync, readdirSync, type Stats } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { runCrawlerCli } from '../support/crawler-process.js';

interface Entry {
  path: string;
  stats: Stats;
}

function walk(dir: string, entries: Entry[] = []): Entry[] {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    const stats = lstatSync(file);
    entries.push({ path: file, stats });
    if (stats.isDirectory()) walk(file, entries);
  }
  return entries;
}

/** Entries whose mode lets anyone but their owner read, write or (for files) run them. */
function notPrivate(entries: Entry[]): string[] {
  return entries
    .filter(({ stats }) => (stats.isDirectory() || stats.isFile()) && (stats.mode & 0o077) !== 0)
    .map(({ path: file, stats }) => `${file} ${(stats.mode & 0o777).toString(8)}`);
}

describe('the stack keeps its secrets', () => {
  let harness: Harness;
  const dataDir = inject('stackDataDir');

  beforeAll(async () => {
    harness = await createHarness('e2e-stack-secrets');
    // A worker fills its data folder's bundle cache; a stored body lands under the stack's minio/.
    await harness.startWorker();
    await harness.bodies.putGzipIfAbsent('0'.repeat(64), { bytes: gzipSync('a body') });
  }, 240_000);

  afterAll(async () => {
    await harness?.close();
  });

  it('`stack up --json` prints no password and no key unless --show-secrets asks', async () => {
    const password = decodeURIComponent(new URL(harness.databaseUrl).password);
    expect(password.length).toBeGreaterThan(0);
    const redacted = await runCrawlerCli(harness, ['stack', 'up', '--json']);
    expect(redacted.code).toBe(0);
    for (const secret of [password, harness.s3.secretKey, harness.s3.accessKey]) expect(redacted.stdout).not.toContain(secret);
    const endpoints = JSON.parse(redacted.stdout) as { postgres: { url: string }; s3: { accessKey: string; secretKey: string; endPoint: string } };
    expect(endpoints.postgres.url).toContain(':***@');
    expect(endpoints.s3).toMatchObject({ accessKey: '***', secretKey: '***', endPoint: harness.s3.endPoint });

    const shown = await runCrawlerCli(harness, ['stack', 'up', '--json', '--show-secrets']);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ postgres: { url: harness.databaseUrl }, s3: { accessKey: harness.s3.accessKey, secretKey: harness.s3.secretKey } });
  });

  it("the stack's data folder and everything under it are private to their owner", () => {
    const entries = walk(dataDir);
    const names = entries.map((entry) => path.relative(dataDir, entry.path));
    // What the folder holds by now: the state file, each service's log, Temporal's database, stored objects.
    expect(names).toEqual(expect.arrayContaining(['stack.json', 'temporal/temporal.db', 'temporal/temporal.log', 'minio/minio.log', 'postgres/postgres.log']));
    expect(names.some((name) => name.startsWith(`minio/data/${harness.s3.bucket}/`))).toBe(true);
    expect(notPrivate(entries)).toEqual([]);
    // The folder itself: its owner's alone, save the search bit Postgres needs when it runs as another user.
    expect(lstatSync(dataDir).mode & 0o077 & ~0o001).toBe(0);
  });

  it("a worker's bundle cache and spool under its data folder are private too", () => {
    const entries = walk(harness.dataDir);
    expect(entries.some((entry) => entry.path.includes(`${path.sep}cache${path.sep}workflow-bundle-`))).toBe(true);
    expect(notPrivate([{ path: harness.dataDir, stats: lstatSync(harness.dataDir) }, ...entries])).toEqual([]);
  });
});
