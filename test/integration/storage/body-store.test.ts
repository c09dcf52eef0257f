// Raw bodies in MinIO, content-addressed: a body is stored once however often it is put, whether
// it comes from memory (one conditional PUT) or from a spool file (a stat, then a PUT). On MinIO.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/domain/hash/index.js';
import { bodyKeyFor } from '../../../src/storage/object-store/body-key.js';
import { BodyStore } from '../../../src/storage/object-store/body-store.js';
import { freshBucket } from '../../support/stack-context.js';

const folder = mkdtempSync(join(tmpdir(), 'body-store-'));
let store: BodyStore;

beforeAll(async () => {
  store = new BodyStore(await freshBucket('body-store'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Versions of the object under a key: a second write of the same body must not add one. */
async function objectsUnder(key: string): Promise<string[]> {
  const names: string[] = [];
  for await (const item of store.client.listObjectsV2(store.bucket, key, true) as AsyncIterable<{ name?: string }>) {
    if (item.name) names.push(item.name);
  }
  return names;
}

describe('BodyStore.putGzipIfAbsent', () => {
  it('creates a body from memory once; putting it again is answered by the store, not written', async () => {
    const body = Buffer.from('<html><body>stored once</body></html>');
    const hash = sha256Hex(body);
    const first = await store.putGzipIfAbsent(hash, { bytes: gzipSync(body) });
    expect(first).toEqual({ key: bodyKeyFor(hash), created: true });
    const stat = await store.client.statObject(store.bucket, first.key);
    const again = await store.putGzipIfAbsent(hash, { bytes: gzipSync(body) });
    expect(again).toEqual({ key: bodyKeyFor(hash), created: false });
    // Not overwritten: the object keeps its first write's modification time and entity tag.
    const after = await store.client.statObject(store.bucket, first.key);
    expect([after.etag, after.lastModified.getTime()]).toEqual([stat.etag, stat.lastModified.getTime()]);
    expect(await objectsUnder(first.key)).toEqual([first.key]);
    expect((await store.getBody(first.key)).equals(body)).toBe(true);
  });

  it('creates a body from a spool file once, and finds a body stored from memory', async () => {
    const body = Buffer.from('<html><body>spooled</body></html>'.repeat(100));
    const hash = sha256Hex(body);
    const filePath = join(folder, 'spooled.gz');
    const gzipped = gzipSync(body);
    writeFileSync(filePath, gzipped);
    expect(await store.putGzipIfAbsent(hash, { filePath, storedBytes: gzipped.length })).toEqual({ key: bodyKeyFor(hash), created: true });
    expect(await store.putGzipIfAbsent(hash, { filePath, storedBytes: gzipped.length })).toEqual({ key: bodyKeyFor(hash), created: false });
    expect(await store.putGzipIfAbsent(hash, { bytes: gzipped })).toEqual({ key: bodyKeyFor(hash), created: false });
    expect((await store.getBody(bodyKeyFor(hash))).equals(body)).toBe(true);
  });

  it('recreates a body removed after it was stored (the prune race the fetch guards against)', async () => {
    const body = Buffer.from('<html><body>pruned, then fetched again</body></html>');
    const hash = sha256Hex(body);
    const { key } = await store.putGzipIfAbsent(hash, { bytes: gzipSync(body) });
    await store.remove(key);
    expect(await store.putGzipIfAbsent(hash, { bytes: gzipSync(body) })).toEqual({ key, created: true });
    expect((await store.getBody(key)).equals(body)).toBe(true);
  });
});
