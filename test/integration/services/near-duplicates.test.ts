// Near-duplicate clustering on Postgres: two copies parsed at the same moment still meet, because
// the second waits on the index keys the first holds and then looks them up; pages that join a
// cluster are found through its representative, and a lookup reads a bounded number of rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOOKUP_LIMITS, clusterNearDuplicates, clusterNearDuplicatesOf, type ParsedIdentity } from '../../../src/services/documents/near-duplicates.js';
import { seededRandom } from '../../../src/domain/random.js';
import { urlFingerprint } from '../../../src/domain/url/index.js';
import { recordDocument } from '../../../src/storage/postgres/document-repository.js';
import { recordUrlIdentities } from '../../../src/storage/postgres/frontier-registration.js';
import { inTransaction, type Pool } from '../../../src/storage/postgres/pool.js';
import { createHarness, type Harness } from '../../support/crawler-harness.js';
import { identityDocument } from '../../support/identity-document.js';
import { waitForLockWaiters } from '../../support/lock-waiters.js';

const HOST = '127.71.1.1';
const crawlId = 'near-duplicates';
/** Two SimHashes 2 bits apart (within k = 3). */
const SIMHASH_A = 0x0123_4567_89ab_cdefn;
const SIMHASH_B = SIMHASH_A ^ 0b101n;

const identityOf = (path: string, simhash: bigint): ParsedIdentity => ({
  fingerprint: urlFingerprint(`http://${HOST}/${path}`),
  generation: 1,
  parserVersion: 1,
  simhash,
  minhash: null,
});

describe('clusterNearDuplicates', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await createHarness('near-duplicates');
    const identities = ['first', 'second'].map((path) => {
      const url = `http://${HOST}/${path}`;
      return { fingerprint: urlFingerprint(url), url, canonicalizationVersion: 1, host: HOST, origin: `http://${HOST}` };
    });
    await recordUrlIdentities(harness.pool, identities);
  });

  afterAll(async () => {
    await harness?.close();
  });

  /** A parse of `doc` left open once it has clustered (its transaction holds its index keys) until `release`. */
  async function parseHoldingItsKeys(doc: ReturnType<typeof identityOf>): Promise<{ outcome: Promise<Awaited<ReturnType<typeof clusterNearDuplicates>>>; release: () => void }> {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let clustered!: () => void;
    const hasKeys = new Promise<void>((resolve) => (clustered = resolve));
    const outcome = inTransaction(harness.pool, async (client) => {
      await recordDocument(client, identityDocument(doc, crawlId));
      const result = await clusterNearDuplicates(client, doc);
      clustered();
      await held;
      return result;
    });
    await hasKeys;
    return { outcome, release };
  }

  it('clusters two near-duplicates parsed at once: the second waits for the first and finds it', async () => {
    const first = identityOf('first', SIMHASH_A);
    const second = identityOf('second', SIMHASH_B);
    const { outcome: firstParse, release: releaseFirst } = await parseHoldingItsKeys(first);
    const secondParse = inTransaction(harness.pool, async (client) => {
      await recordDocument(client, identityDocument(second, crawlId));
      return clusterNearDuplicates(client, second);
    });
    await waitForLockWaiters(harness.pool, 'the second parse waiting for the first one’s index keys');
    releaseFirst();

    expect(await firstParse).toEqual({ status: 'unique' });
    expect(await secondParse).toMatchObject({ status: 'member', clusterId: first.fingerprint, matched: first.fingerprint, method: 'simhash', distance: 2 });
    const members = await harness.pool.query<{ method: string }>('SELECT method FROM near_duplicates ORDER BY method');
    expect(members.rows.map((row) => row.method)).toEqual(['representative', 'simhash']);
    // The membership, written with COMMIT, is mirrored on the URL record.
    const mirrored = await harness.pool.query<{ of: Buffer | null }>('SELECT near_duplicate_of AS of FROM urls WHERE fingerprint = $1', [Buffer.from(second.fingerprint, 'hex')]);
    expect(mirrored.rows[0]?.of?.toString('hex')).toBe(first.fingerprint);
  });

  it('finds the nearest match among more pages sharing a common key than one lookup reads', async () => {
    // DECOYS pages share only the lowest 16-bit block with the target (boilerplate), each at least
    // 16 bits away; one page 1 bit away shares all but one block. Indexed last, it still comes first.
    // Every decoy's fingerprint sorts before the nearest's: read in fingerprint order, a lookup
    // would fill up with decoys and never see it.
    const DECOYS = 120;
    const TARGET = 0x5a5a_3c3c_0f0f_1234n;
    const nearest = identityOf('nearest', TARGET ^ (1n << 20n));
    const target = identityOf('target', TARGET);
    const decoyPaths: string[] = [];
    for (let n = 0; decoyPaths.length < DECOYS; n++) {
      if (urlFingerprint(`http://${HOST}/decoy-${n}`) < nearest.fingerprint) decoyPaths.push(`decoy-${n}`);
    }
    const decoys = decoyPaths.map((path, i) => identityOf(path, (TARGET & 0xffffn) | ((BigInt(i + 1) * 0x0001_0001_0001_0000n) ^ (TARGET & ~0xffffn) ^ 0xffff_0000_0000_0000n)));
    const paths = [...decoyPaths, 'nearest', 'target'];
    const outcome = await clusterLast(harness.pool, paths, [...decoys, nearest], target);
    expect(outcome).toMatchObject({ status: 'member', matched: nearest.fingerprint, method: 'simhash', distance: 1 });
  });

  it('finds a near match that shares one block among more far pages sharing three than one lookup reads', async () => {
    // Each decoy differs from the target only in its top 16-bit block, by 4 to 16 bits: it shares
    // three blocks and is not near. The near page is 3 bits away, one bit in each of the lower three
    // blocks: it shares only the top block. Ranked by blocks shared, the decoys fill the lookup.
    const DECOYS = 120;
    const TARGET = 0x7e7e_1818_6b6b_c3c3n;
    const near = identityOf('near-one-block', TARGET ^ (1n << 3n) ^ (1n << 19n) ^ (1n << 35n));
    const target = identityOf('target-one-block', TARGET);
    const decoyPaths: string[] = [];
    const decoys: ParsedIdentity[] = [];
    for (let n = 1; decoys.length < DECOYS; n++) {
      const flipped = BigInt(n);
      if (popCount(flipped) < 4) continue;
      decoyPaths.push(`far-decoy-${n}`);
      decoys.push(identityOf(`far-decoy-${n}`, TARGET ^ (flipped << 48n)));
    }
    const outcome = await clusterLast(harness.pool, [...decoyPaths, 'near-one-block', 'target-one-block'], [near, ...decoys], target);
    expect(outcome).toMatchObject({ status: 'member', matched: near.fingerprint, method: 'simhash', distance: 3 });
  });

  it('reads cluster leaders only: a page alike to a cluster of many compares with its representative', async () => {
    // MEMBERS pages, each 1 or 2 bits from the representative, join its cluster one by one; their
    // index rows stop being candidates, so the next alike page reads the representative alone.
    const MEMBERS = 150;
    const CENTRE = 0x3c5a_96e1_0f72_b4d8n;
    const flips: bigint[] = [];
    for (let a = 0; a < 64 && flips.length < MEMBERS; a++) {
      for (let b = a; b < 64 && flips.length < MEMBERS; b++) flips.push((1n << BigInt(a)) | (1n << BigInt(b)));
    }
    const representative = identityOf('leader-centre', CENTRE);
    const members = flips.map((flip, i) => identityOf(`leader-member-${i}`, CENTRE ^ flip));
    const next = identityOf('leader-next', CENTRE ^ (1n << 63n) ^ (1n << 1n));
    const outcome = await clusterLast(harness.pool, ['leader-centre', ...members.map((_, i) => `leader-member-${i}`), 'leader-next'], [representative, ...members], next);
    expect(outcome).toEqual({ status: 'member', clusterId: representative.fingerprint, matched: representative.fingerprint, method: 'simhash', distance: 2 });
    const leaders = await harness.pool.query<{ fingerprint: Buffer }>(
      `SELECT DISTINCT fingerprint FROM simhash_blocks WHERE leader AND fingerprint = ANY($1::bytea[])`,
      [[representative, ...members, next].map((doc) => Buffer.from(doc.fingerprint, 'hex'))],
    );
    expect(leaders.rows.map((row) => row.fingerprint.toString('hex'))).toEqual([representative.fingerprint]);
  });

  it('reads a bounded number of leaders a key and still finds a near page under another key', async () => {
    // LEADERS far pages (pairwise far: random upper bits) share the target's lowest block: more than
    // one lookup reads a key. The near page differs in that block only, so it is found through the
    // other three.
    const LEADERS = LOOKUP_LIMITS.maxRowsPerKey + 40;
    const TARGET = 0x6d2b_79f5_4a7c_159en;
    const random = seededRandom(52);
    const word = (): bigint => BigInt(Math.floor(random() * 0x1_0000));
    const far = Array.from({ length: LEADERS }, (_, i) => identityOf(`capped-far-${i}`, (TARGET & 0xffffn) | (word() << 16n) | (word() << 32n) | (word() << 48n)));
    const near = identityOf('capped-near', TARGET ^ (1n << 5n));
    const target = identityOf('capped-target', TARGET);
    const outcome = await clusterLast(harness.pool, [...far.map((_, i) => `capped-far-${i}`), 'capped-near', 'capped-target'], [...far, near], target);
    expect(outcome).toMatchObject({ status: 'member', matched: near.fingerprint, method: 'simhash', distance: 1, cappedKeys: 1 });
  });

  it('lets pages that join a leader\'s cluster parse at once: only a page that may lead waits for the keys', async () => {
    const LEADER = 0x1f3e_5d7c_9bba_d8f6n;
    const leader = identityOf('lockless-leader', LEADER);
    await clusterLast(harness.pool, ['lockless-leader', 'lockless-a', 'lockless-b'], [], leader);
    const a = identityOf('lockless-a', LEADER ^ 0b11n);
    const b = identityOf('lockless-b', LEADER ^ 0b101n);
    let releaseA!: () => void;
    const aHolds = new Promise<void>((resolve) => (releaseA = resolve));
    let aLookedUp!: () => void;
    const aHasLookedUp = new Promise<void>((resolve) => (aLookedUp = resolve));
    const aParse = inTransaction(harness.pool, async (client) => {
      await recordDocument(client, identityDocument(a, crawlId));
      const outcome = await clusterNearDuplicates(client, a);
      aLookedUp();
      await aHolds;
      return outcome;
    });
    await aHasLookedUp;
    // b shares three blocks with a, whose transaction is open: b must not wait for it.
    const bParse = inTransaction(harness.pool, async (client) => {
      await recordDocument(client, identityDocument(b, crawlId));
      return clusterNearDuplicates(client, b);
    });
    const bEnded = await Promise.race([bParse.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 10_000))]);
    releaseA();
    expect(bEnded).toBe(true);
    expect(await aParse).toMatchObject({ status: 'member', clusterId: leader.fingerprint, distance: 2 });
    expect(await bParse).toMatchObject({ status: 'member', clusterId: leader.fingerprint, distance: 2 });
  });

  it('lets a page near an earlier page of its batch join it without waiting for the keys', async () => {
    // `mate` differs from `first` in its lowest block only; `holder`, far from both, shares that
    // block with `mate` and holds its keys in a parse left open. The batch [first, mate] must not
    // wait for it: mate joins first's cluster whatever a lookup under the locks would find.
    const FIRST = 0x2b7d_c41e_93a6_5f08n;
    const first = identityOf('batch-first', FIRST);
    const mate = identityOf('batch-mate', FIRST ^ (1n << 3n));
    const holder = identityOf('batch-holder', (mate.simhash! & 0xffffn) | 0x5e1c_0f93_a274_0000n);
    await recordPaths(harness.pool, ['batch-first', 'batch-mate', 'batch-holder']);
    const { outcome: holderParse, release: releaseHolder } = await parseHoldingItsKeys(holder);
    const batchParse = inTransaction(harness.pool, async (client) => {
      for (const doc of [first, mate]) await recordDocument(client, identityDocument(doc, crawlId));
      return clusterNearDuplicatesOf(client, [first, mate]);
    });
    const batchEnded = await Promise.race([batchParse.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 10_000))]);
    releaseHolder();
    expect(batchEnded).toBe(true);
    expect(await holderParse).toEqual({ status: 'unique' });
    expect(await batchParse).toEqual([
      { status: 'unique' },
      { status: 'member', clusterId: first.fingerprint, matched: first.fingerprint, method: 'simhash', distance: 1 },
    ]);
    const leaders = await harness.pool.query<{ fingerprint: Buffer; leader: boolean }>(
      `SELECT fingerprint, bool_and(leader) AS leader FROM simhash_blocks WHERE fingerprint = ANY($1::bytea[]) GROUP BY fingerprint`,
      [[first, mate].map((doc) => Buffer.from(doc.fingerprint, 'hex'))],
    );
    expect(new Map(leaders.rows.map((row) => [row.fingerprint.toString('hex'), row.leader]))).toEqual(
      new Map([
        [first.fingerprint, true],
        [mate.fingerprint, false],
      ]),
    );
  });

  it('keeps a representative a leader when its new text is near another leader', async () => {
    // rep leads a cluster with member; other, 8 bits from rep, leads alone. rep's next generation
    // is 1 bit from other: it stays the representative of its cluster, so its index rows must stay
    // leaders, or the pages alike to its cluster would no longer find it.
    const REP = 0x4c1d_7a92_e5b3_086fn;
    const rep = identityOf('rep-keeps', REP);
    const member = identityOf('rep-keeps-member', REP ^ 0b11n);
    const other = identityOf('rep-keeps-other', REP ^ 0xf0f0_0000_0000_0000n);
    const paths = ['rep-keeps', 'rep-keeps-member', 'rep-keeps-other'];
    expect(await clusterLast(harness.pool, paths, [rep], member)).toMatchObject({ status: 'member', clusterId: rep.fingerprint });
    expect(await clusterLast(harness.pool, [], [], other)).toEqual({ status: 'unique' });
    const repNext: ParsedIdentity = { ...identityOf('rep-keeps', other.simhash! ^ 1n), generation: 2 };
    expect(await clusterLast(harness.pool, [], [], repNext)).toEqual({ status: 'representative', clusterId: rep.fingerprint });
    const rows = await harness.pool.query<{ leader: boolean; generation: number }>(`SELECT leader, generation FROM simhash_blocks WHERE fingerprint = $1`, [Buffer.from(rep.fingerprint, 'hex')]);
    expect(rows.rows).toHaveLength(4);
    expect(rows.rows.every((row) => row.leader && row.generation === 2)).toBe(true);
  });
});

/** Records the URLs at `paths`, parses and clusters each of `earlier` in a transaction of its own, then `last`: its outcome. */
async function clusterLast(pool: Pool, paths: readonly string[], earlier: readonly ParsedIdentity[], last: ParsedIdentity) {
  await recordPaths(pool, paths);
  const parse = (doc: ParsedIdentity) =>
    inTransaction(pool, async (client) => {
      await recordDocument(client, identityDocument(doc, crawlId));
      return clusterNearDuplicates(client, doc);
    });
  for (const doc of earlier) await parse(doc);
  return parse(last);
}

/** Records the URLs at `paths` of the test host. */
async function recordPaths(pool: Pool, paths: readonly string[]): Promise<void> {
  await recordUrlIdentities(
    pool,
    paths.map((path) => ({ fingerprint: urlFingerprint(`http://${HOST}/${path}`), url: `http://${HOST}/${path}`, canonicalizationVersion: 1, host: HOST, origin: `http://${HOST}` })),
  );
}

function popCount(value: bigint): number {
  let count = 0;
  for (let rest = value; rest > 0n; rest >>= 1n) count += Number(rest & 1n);
  return count;
}
