// A visit's report on Postgres: the first is a baseline, a replay of it changes nothing, a later
// visit with other content is a change one interval after it, and the URL record follows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordVisit } from '../../src/services/documents/change-detection.js';
import { changeKey } from '../../src/domain/recrawl/index.js';
import { urlFingerprint } from '../../src/domain/url/index.js';
import { fingerprintToBytes, recordUrlIdentities } from '../../src/storage/postgres/frontier-repository.js';
import { inTransaction } from '../../src/storage/postgres/pool.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';

const HOST = '127.71.2.1';
const URL_ = `http://${HOST}/page`;
const FINGERPRINT = urlFingerprint(URL_);
const DAY_MS = 86_400_000;
const T0 = Date.parse('2026-11-01T00:00:00Z');

describe('recordVisit', () => {
  let harness: Harness;
  const visit = (generation: number, observedAtMs: number, digest: string) =>
    inTransaction(harness.pool, (client) =>
      recordVisit(client, { fingerprint: FINGERPRINT, generation, crawlId: 'record-visit', observedAtMs, content: { kind: 'content', changeKey: changeKey('n', digest) } }),
    );
  const urlRecord = async () =>
    (
      await harness.pool.query<{ change_observations: number; changes_observed: number; last_observed_at: Date | null; next_fetch_at: Date | null }>(
        'SELECT change_observations, changes_observed, last_observed_at, next_fetch_at FROM urls WHERE fingerprint = $1',
        [fingerprintToBytes(FINGERPRINT)],
      )
    ).rows[0]!;
  const observations = async () =>
    (
      await harness.pool.query<{ generation: number; verdict: string; interval_days: number | null }>(
        'SELECT generation, verdict, interval_days FROM url_observations WHERE fingerprint = $1 ORDER BY generation',
        [fingerprintToBytes(FINGERPRINT)],
      )
    ).rows;

  beforeAll(async () => {
    harness = await createHarness('record-visit');
    await recordUrlIdentities(harness.pool, [{ fingerprint: FINGERPRINT, url: URL_, canonicalizationVersion: 1, host: HOST, origin: `http://${HOST}` }]);
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('records a baseline, ignores its replay, and counts a later change one interval on', async () => {
    const first = await visit(1, T0, 'aa'.repeat(32));
    expect(first.verdict).toBe('baseline');
    const afterFirst = await urlRecord();
    expect(afterFirst.last_observed_at).toEqual(new Date(T0));
    expect(afterFirst.next_fetch_at?.getTime()).toBe(Math.floor(first.nextFetchAtMs!));

    // The same visit reported again (a retried parse): nothing moves.
    expect(await visit(1, T0 + DAY_MS, 'bb'.repeat(32))).toEqual({ verdict: 'replayed' });
    expect(await urlRecord()).toEqual(afterFirst);
    expect(await observations()).toEqual([{ generation: 1, verdict: 'baseline', interval_days: null }]);

    const second = await visit(2, T0 + DAY_MS, 'bb'.repeat(32));
    expect(second.verdict).toBe('changed');
    expect(await observations()).toEqual([
      { generation: 1, verdict: 'baseline', interval_days: null },
      { generation: 2, verdict: 'changed', interval_days: 1 },
    ]);
    expect(await urlRecord()).toMatchObject({ change_observations: 1, changes_observed: 1, last_observed_at: new Date(T0 + DAY_MS) });
  });
});
