// Near-duplicate clustering on Postgres: two copies parsed at the same moment still meet, because
// the second waits on the index keys the first holds and then looks them up. On Postgres.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterNearDuplicates, type ParsedIdentity } from '../../src/activities/near-duplicates.js';
import { toSignedInt64String } from '../../src/domain/content/index.js';
import { urlFingerprint } from '../../src/domain/url/index.js';
import { recordDocument } from '../../src/storage/postgres/document-repository.js';
import { recordUrlIdentities } from '../../src/storage/postgres/frontier-repository.js';
import { inTransaction } from '../../src/storage/postgres/pool.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { waitForLockWaiters } from '../support/lock-waiters.js';

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

  it('clusters two near-duplicates parsed at once: the second waits for the first and finds it', async () => {
    const first = identityOf('first', SIMHASH_A);
    const second = identityOf('second', SIMHASH_B);
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstIndexed!: () => void;
    const firstHasKeys = new Promise<void>((resolve) => (firstIndexed = resolve));

    const firstParse = inTransaction(harness.pool, async (client) => {
      await recordDocument(client, documentOf(first));
      const outcome = await clusterNearDuplicates(client, first);
      firstIndexed();
      await firstHolds;
      return outcome;
    });
    await firstHasKeys;
    const secondParse = inTransaction(harness.pool, async (client) => {
      await recordDocument(client, documentOf(second));
      return clusterNearDuplicates(client, second);
    });
    await waitForLockWaiters(harness.pool, 'the second parse waiting for the first one’s index keys');
    releaseFirst();

    expect(await firstParse).toEqual({ status: 'unique' });
    expect(await secondParse).toMatchObject({ status: 'member', clusterId: first.fingerprint, matched: first.fingerprint, method: 'simhash', distance: 2 });
    const members = await harness.pool.query<{ method: string }>('SELECT method FROM near_duplicates ORDER BY method');
    expect(members.rows.map((row) => row.method)).toEqual(['representative', 'simhash']);
  });
});

function documentOf(doc: ParsedIdentity) {
  return {
    fingerprint: doc.fingerprint,
    generation: doc.generation,
    parserVersion: doc.parserVersion,
    crawlId,
    title: null,
    language: null,
    canonicalHint: null,
    metaRobots: null,
    xRobotsTag: null,
    noindex: false,
    nofollow: false,
    charset: 'utf-8',
    textLength: 900,
    normalizedHash: null,
    simhashSigned: toSignedInt64String(doc.simhash!),
    minhash: null,
    linksFound: 0,
    linksRegistered: 0,
    extracted: {},
  };
}
