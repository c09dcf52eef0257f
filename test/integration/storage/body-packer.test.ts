// Small bodies packed into shared objects: what one pack holds, when it is sent, how a body stored
// before is answered, and what a failed upload does. On MinIO and Postgres.
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepBodyStored } from '../../../src/storage/body-retention.js';
import { bodyKeyFor, isPackKey, packKeyOf } from '../../../src/storage/object-store/body-key.js';
import { BodyPacker, type BodyPackerOptions, type PackStore } from '../../../src/storage/object-store/body-packer.js';
import { BodyStore } from '../../../src/storage/object-store/body-store.js';
import { PinnedPacks } from '../../../src/storage/object-store/pinned-packs.js';
import { recordBody, storedBodyKeys } from '../../../src/storage/postgres/body-repository.js';
import { createHarness, type Harness } from '../../support/crawler-harness.js';
import { freshBucket } from '../../support/stack-context.js';

interface Body {
  text: string;
  sha256: string;
  gzipped: Buffer;
}

const bodyOf = (text: string): Body => ({ text, sha256: createHash('sha256').update(text).digest('hex'), gzipped: gzipSync(Buffer.from(text)) });

describe('BodyPacker', () => {
  let harness: Harness;
  /** Pack uploads seen, in order, through a store that passes them on to MinIO. */
  let uploads: { key: string; bytes: number }[];
  const counting = (store: PackStore): PackStore => ({
    async putPack(key, bytes) {
      uploads.push({ key, bytes: bytes.length });
      await store.putPack(key, bytes);
    },
  });
  const packerWith = (options: BodyPackerOptions = {}, store: PackStore = harness.bodies) =>
    new BodyPacker(counting(store), (sha256s) => storedBodyKeys(harness.pool, sha256s), options);

  beforeAll(async () => {
    harness = await createHarness('body-packer');
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('sends the bodies added within its wait as one pack, each readable by its key', async () => {
    uploads = [];
    const packer = packerWith({ maxWaitMs: 200 });
    const bodies = ['first page', 'second page', 'third page, a little longer'].map(bodyOf);
    const stored = await Promise.all(bodies.map((body) => packer.add(body.sha256, body.gzipped)));
    expect(uploads).toHaveLength(1);
    expect(stored.every(({ created }) => created)).toBe(true);
    const pack = packKeyOf(stored[0]!.key)!;
    expect(isPackKey(pack)).toBe(true);
    expect(stored.map(({ key }) => packKeyOf(key))).toEqual([pack, pack, pack]);
    for (const [i, body] of bodies.entries()) expect((await harness.bodies.getBody(stored[i]!.key)).toString()).toBe(body.text);
    // The pack is the bodies' gzip members one after another: gunzip reads them all, in order.
    const whole = await harness.bodies.client.getObject(harness.bodies.bucket, pack);
    const chunks: Buffer[] = [];
    for await (const chunk of whole) chunks.push(chunk as Buffer);
    expect(gunzipSync(Buffer.concat(chunks)).toString()).toBe(bodies.map((body) => body.text).join(''));
  });

  it('stores a body added twice once, and answers one already recorded with its key', async () => {
    uploads = [];
    const packer = packerWith();
    const twice = bodyOf('the same page twice');
    const recorded = bodyOf('a page recorded before');
    await recordBody(harness.pool, { sha256: recorded.sha256, objectKey: bodyKeyFor(recorded.sha256), bytes: recorded.text.length, storedBytes: recorded.gzipped.length });
    const [a, b, known] = await Promise.all([packer.add(twice.sha256, twice.gzipped), packer.add(twice.sha256, twice.gzipped), packer.add(recorded.sha256, recorded.gzipped)]);
    // The second add shares the first's member; only the first stored it (the other checks it after its commit).
    expect(a.created).toBe(true);
    expect(b).toEqual({ key: a.key, created: false });
    expect(known).toEqual({ key: bodyKeyFor(recorded.sha256), created: false });
    expect(uploads).toEqual([{ key: packKeyOf(a.key), bytes: twice.gzipped.length }]);
    // Later, from memory: no lookup, no upload.
    expect(await packer.add(twice.sha256, twice.gzipped)).toEqual({ key: a.key, created: false });
    expect(uploads).toHaveLength(1);
    // A pack whose bodies are all recorded already is not sent at all.
    const again = packerWith();
    expect(await again.add(recorded.sha256, recorded.gzipped)).toEqual({ key: bodyKeyFor(recorded.sha256), created: false });
    expect(uploads).toHaveLength(1);
  });

  it('sends a pack as soon as it is full, without waiting', async () => {
    uploads = [];
    // Waiting out maxWaitMs would outlast the test's timeout: only a full pack is sent.
    const packer = packerWith({ maxWaitMs: 3_600_000, maxPackBytes: 16 });
    const bodies = Array.from({ length: 4 }, (_, i) => bodyOf(`page ${i}`));
    const stored = await Promise.all(bodies.map((body) => packer.add(body.sha256, body.gzipped)));
    // A gzip member alone is over 16 bytes: every add fills a pack.
    expect(uploads).toHaveLength(4);
    expect(new Set(stored.map(({ key }) => packKeyOf(key))).size).toBe(4);
  });

  it('sends at most maxPacksInFlight packs at once', async () => {
    uploads = [];
    let inFlight = 0;
    let most = 0;
    const slow: PackStore = {
      async putPack(key, bytes) {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 50));
        await harness.bodies.putPack(key, bytes);
        inFlight -= 1;
      },
    };
    const packer = packerWith({ maxPackBytes: 1, maxPacksInFlight: 2 }, slow);
    const bodies = Array.from({ length: 6 }, (_, i) => bodyOf(`in flight ${i}`));
    await Promise.all(bodies.map((body) => packer.add(body.sha256, body.gzipped)));
    expect(uploads).toHaveLength(6);
    expect(most).toBe(2);
  });

  it('fails every body of a pack whose upload failed, and stores them when added again', async () => {
    uploads = [];
    const missing = await freshBucket('body-packer-later');
    const later = new BodyStore({ ...missing, bucket: `${missing.bucket}-x` });
    const packer = packerWith({}, later);
    const bodies = ['lost once', 'lost once too'].map(bodyOf);
    const failed = await Promise.allSettled(bodies.map((body) => packer.add(body.sha256, body.gzipped)));
    expect(failed.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect(String((failed[0] as PromiseRejectedResult).reason)).toMatch(/bucket/i);
    await later.ensureBucket();
    const stored = await packer.add(bodies[0]!.sha256, bodies[0]!.gzipped);
    expect(stored.created).toBe(true);
    expect((await later.getBody(stored.key)).toString()).toBe('lost once');
  });

  it('fails the bodies of a pack whose upload does not answer, and frees its slot', async () => {
    uploads = [];
    let calls = 0;
    // The first upload never answers; the next ones store.
    const hangingOnce: PackStore = {
      putPack(key, bytes) {
        calls += 1;
        return calls === 1 ? new Promise<void>(() => undefined) : harness.bodies.putPack(key, bytes);
      },
    };
    const packer = packerWith({ maxPacksInFlight: 1, putTimeoutMs: 100 }, hangingOnce);
    const hung = bodyOf('a body the store never answered for');
    await expect(packer.add(hung.sha256, hung.gzipped)).rejects.toThrow(/got no answer in 100 ms: is the object store up\?/);
    // Its one slot is free again: the next pack goes out, and the failed body may be added again.
    const stored = await packer.add(hung.sha256, hung.gzipped);
    expect(stored.created).toBe(true);
    expect((await harness.bodies.getBody(stored.key)).toString()).toBe('a body the store never answered for');
  });

  it('refuses what is not a body by name', async () => {
    const packer = packerWith();
    await expect(packer.add('nope', Buffer.from('x'))).rejects.toThrow(/not a SHA-256 hex digest: 'nope'/);
    await expect(packer.add(bodyOf('x').sha256, Buffer.alloc(0))).rejects.toThrow(/is empty/);
    expect(() => packerWith({ maxWaitMs: 0 })).toThrow(/BodyPackerOptions.maxWaitMs must be a number > 0, got 0/);
  });
});

describe('keepBodyStored', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await createHarness('keep-body-stored');
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('leaves a packed body whose pack exists where it is', async () => {
    const body = bodyOf('a packed body that stays');
    const packer = new BodyPacker(harness.bodies, (sha256s) => storedBodyKeys(harness.pool, sha256s));
    const { key } = await packer.add(body.sha256, body.gzipped);
    expect(await keepBodyStored(harness, { sha256: body.sha256, key, body: { bytes: body.gzipped } })).toBe(key);
  });

  it('asks the store for a pack until it was found there once, given the packs pinned so far', async () => {
    const asked: string[] = [];
    const bodies = Object.assign(Object.create(harness.bodies) as BodyStore, {
      exists: (key: string) => {
        asked.push(key);
        return harness.bodies.exists(key);
      },
    });
    const pinnedPacks = new PinnedPacks();
    const deps = { pool: harness.pool, bodies, pinnedPacks };
    const packer = new BodyPacker(harness.bodies, (sha256s) => storedBodyKeys(harness.pool, sha256s), { maxWaitMs: 200 });
    const [first, second] = ['the first body of a kept pack', 'the second body of a kept pack'].map(bodyOf);
    const [firstKey, secondKey] = (await Promise.all([packer.add(first!.sha256, first!.gzipped), packer.add(second!.sha256, second!.gzipped)])).map(({ key }) => key);
    const kept = packKeyOf(firstKey!)!;
    expect(packKeyOf(secondKey!)).toBe(kept);
    expect(await keepBodyStored(deps, { sha256: first!.sha256, key: firstKey!, body: { bytes: first!.gzipped } })).toBe(firstKey);
    expect(await keepBodyStored(deps, { sha256: second!.sha256, key: secondKey!, body: { bytes: second!.gzipped } })).toBe(secondKey);
    expect(asked).toEqual([kept]);
    // A pack found missing is not pinned: the next body pointing into it is checked again.
    const [lost, alsoLost] = ['a body of a removed pack', 'another body of the removed pack'].map(bodyOf);
    const [lostKey, alsoLostKey] = (await Promise.all([packer.add(lost!.sha256, lost!.gzipped), packer.add(alsoLost!.sha256, alsoLost!.gzipped)])).map(({ key }) => key);
    const removed = packKeyOf(lostKey!)!;
    await harness.bodies.remove(removed);
    expect(await keepBodyStored(deps, { sha256: lost!.sha256, key: lostKey!, body: { bytes: lost!.gzipped } })).toBe(bodyKeyFor(lost!.sha256));
    expect(await keepBodyStored(deps, { sha256: alsoLost!.sha256, key: alsoLostKey!, body: { bytes: alsoLost!.gzipped } })).toBe(bodyKeyFor(alsoLost!.sha256));
    expect(asked).toEqual([kept, removed, removed]);
    expect(pinnedPacks.has(removed)).toBe(false);
  });

  it('stores a body on its own when its pack was pruned, and moves its records there', async () => {
    const body = bodyOf('a packed body whose pack a prune removed');
    const packer = new BodyPacker(harness.bodies, (sha256s) => storedBodyKeys(harness.pool, sha256s));
    const { key } = await packer.add(body.sha256, body.gzipped);
    await recordBody(harness.pool, { sha256: body.sha256, objectKey: key, bytes: body.text.length, storedBytes: body.gzipped.length });
    await harness.pool.query(
      `INSERT INTO fetches (fingerprint, generation, crawl_id, url, final_url, fetched_at, status, outcome, raw_hash, body_key, bytes)
       VALUES ('\\x01', 1, 'c', 'http://a/', 'http://a/', now(), 200, 'ok', $1, $2, 1), ('\\x02', 1, 'c', 'http://b/', 'http://b/', now(), 200, 'ok', $1, $2, 1)`,
      [Buffer.from(body.sha256, 'hex'), key],
    );
    await harness.bodies.remove(packKeyOf(key)!);
    const moved = await keepBodyStored(harness, { sha256: body.sha256, key, body: { bytes: body.gzipped } });
    expect(moved).toBe(bodyKeyFor(body.sha256));
    expect((await harness.bodies.getBody(moved)).toString()).toBe(body.text);
    const rows = await harness.pool.query<{ key: string }>(
      `SELECT object_key AS key FROM bodies WHERE sha256 = $1 UNION ALL SELECT body_key FROM fetches WHERE raw_hash = $1`,
      [Buffer.from(body.sha256, 'hex')],
    );
    expect(rows.rows.map((row) => row.key)).toEqual([moved, moved, moved]);
  });
});
