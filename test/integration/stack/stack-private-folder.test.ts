// `crawler crawl --data-dir "$(mktemp -d)"` run as root, as in every container: the folder is 0700
// and owned by root, and Postgres runs as the `postgres` user, which must be able to enter it. The
// stack makes the folders above its cluster searchable (o+x) itself, so the user need not chmod.
import { mkdtempSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureStack, stopStack } from '../../../src/stack/index.js';
import { makeSearchableBy } from '../../../src/stack/searchable-path.js';
import { withoutExternalServices } from '../../support/global-stack.js';

const asRoot = process.getuid?.() === 0;

describe('folders above the Postgres cluster', () => {
  const root = mkdtempSync(join(tmpdir(), 'crawler-searchable-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('get the search bit for others where the cluster user cannot enter, and nothing else changes', () => {
    const nested = join(root, 'a', 'b');
    mkdirSync(nested, { recursive: true, mode: 0o700 });
    const ownUid = statSync(root).uid;
    const stranger = { name: 'stranger', uid: ownUid + 4242, gid: 4242 };
    const changed = makeSearchableBy(join(nested, 'postgres'), stranger, ownUid);
    expect(changed).toEqual([nested, join(root, 'a'), root]);
    for (const folder of changed) expect(statSync(folder).mode & 0o777).toBe(0o701);
    // Already searchable: left alone.
    expect(makeSearchableBy(join(nested, 'postgres'), stranger, ownUid)).toEqual([]);
  });
});

describe.runIf(asRoot)('the stack run as root in a fresh mktemp -d folder', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'crawler-root-'));
  afterAll(async () => {
    await stopStack({ dataDir });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts Postgres (as the postgres user) without a chmod by the user', async () => {
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    const endpoints = await ensureStack({ dataDir, env: withoutExternalServices(process.env) });
    const client = new pg.Client({ connectionString: endpoints.postgres.url });
    await client.connect();
    const { rows } = await client.query<{ ok: number }>('SELECT 1 AS ok');
    await client.end();
    expect(rows).toEqual([{ ok: 1 }]);
    // Enter only: others still cannot list the folder.
    expect(statSync(dataDir).mode & 0o777).toBe(0o701);
  }, 180_000);
});
