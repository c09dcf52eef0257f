// A visit's report on Postgres: the first is a baseline, a replay of it changes nothing, a later
// visit with other content is a change one interval after it, and the URL record follows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadComparisonEvidence, recordVisit } from '../../../src/services/documents/change-detection.js';
import { changeKey } from '../../../src/domain/recrawl/index.js';
import { urlFingerprint } from '../../../src/domain/url/index.js';
import { recordFetch } from '../../../src/storage/postgres/fetch-repository.js';
import { recordUrlIdentities } from '../../../src/storage/postgres/frontier-registration.js';
import { fingerprintToBytes } from '../../../src/storage/postgres/sql-codec.js';
import { hostChangeRatesOf, insertObservation, lockUrlEvidence, recentObservationsOf, type ObservationRow } from '../../../src/storage/postgres/observation-repository.js';
import { inTransaction } from '../../../src/storage/postgres/pool.js';
import { createHarness, type Harness } from '../../support/crawler-harness.js';

const HOST = '127.71.2.1';
const URL_ = `http://${HOST}/page`;
const FINGERPRINT = urlFingerprint(URL_);
const DATED_URL = `http://${HOST}/dated`;
const DATED = urlFingerprint(DATED_URL);
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
    await recordUrlIdentities(harness.pool, [
      { fingerprint: FINGERPRINT, url: URL_, canonicalizationVersion: 1, host: HOST, origin: `http://${HOST}` },
      { fingerprint: DATED, url: DATED_URL, canonicalizationVersion: 1, host: HOST, origin: `http://${HOST}` },
    ]);
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

  it("dates a change by its fetch record's Last-Modified, and estimates from the version's age once the dates held", async () => {
    const httpDate = (ms: number) => new Date(ms).toUTCString();
    // The page changes twice an hour; the cycle looks once a day, so every look finds a change.
    const fetchedAt = (generation: number) => T0 + (generation - 1) * DAY_MS;
    const datedVisit = async (generation: number, lastModifiedMs: number) =>
      inTransaction(harness.pool, async (client) => {
        await recordFetch(client, {
          fingerprint: DATED,
          generation,
          crawlId: 'record-visit',
          url: DATED_URL,
          finalUrl: DATED_URL,
          fetchedAt: new Date(fetchedAt(generation)),
          status: 200,
          outcome: 'ok',
          contentType: 'text/html',
          headers: { 'last-modified': httpDate(lastModifiedMs), date: httpDate(fetchedAt(generation)) },
          rawHash: null,
          bodyKey: null,
          bytes: 100,
          wireBytes: 100,
          timings: {},
          redirectLocation: null,
        });
        return recordVisit(client, {
          fingerprint: DATED,
          generation,
          crawlId: 'record-visit',
          observedAtMs: fetchedAt(generation),
          content: { kind: 'content', changeKey: changeKey('n', String(generation).repeat(64)) },
        });
      });
    await datedVisit(1, T0 - 10 * 60_000);
    const changes = [];
    for (let generation = 2; generation <= 4; generation += 1) changes.push(await datedVisit(generation, fetchedAt(generation) - 30 * 60_000));
    expect(changes.map((visit) => visit.verdict)).toEqual(['changed', 'changed', 'changed']);
    const rows = await harness.pool.query<{ version_age_days: number | null }>('SELECT version_age_days FROM url_observations WHERE fingerprint = $1 ORDER BY generation', [
      fingerprintToBytes(DATED),
    ]);
    // The baseline keeps its version's age too: ten minutes the page is known not to have changed.
    expect(rows.rows.map((row) => row.version_age_days)).toEqual([1 / 144, 1 / 48, 1 / 48, 1 / 48]);
    const record = (
      await harness.pool.query<{ change_rate_method: string; version_dates_confirmed: number; version_dates_refuted: number }>(
        'SELECT change_rate_method, version_dates_confirmed, version_dates_refuted FROM urls WHERE fingerprint = $1',
        [fingerprintToBytes(DATED)],
      )
    ).rows[0];
    expect(record).toEqual({ change_rate_method: 'dated-mle+prior', version_dates_confirmed: 3, version_dates_refuted: 0 });
    // Three changes over an hour and 40 minutes of change-free time: 43 a day, drawn toward the
    // host's other page; three daily looks alone would read ln(7) ≈ 1.9 a day.
    expect(changes.at(-1)!.ratePerDay).toBeGreaterThan(20);
  });

  it("reads several URLs' observation windows in one statement, each URL's own, oldest first", async () => {
    const urls = ['window-a', 'window-b', 'window-c'].map((name) => `http://${HOST}/${name}`);
    const [a, b, c] = urls.map((url) => urlFingerprint(url)) as [string, string, string];
    await recordUrlIdentities(
      harness.pool,
      urls.map((url) => ({ fingerprint: urlFingerprint(url), url, canonicalizationVersion: 1, host: HOST, origin: `http://${HOST}` })),
    );
    const observe = (fingerprint: string, generation: number, verdict: ObservationRow['verdict'], intervalDays: number | null, versionAgeDays: number | null = null) =>
      inTransaction(harness.pool, (client) =>
        insertObservation(client, {
        fingerprint,
        generation,
        crawlId: 'record-visit',
        observedAt: new Date(T0 + generation * DAY_MS),
        verdict,
        source: 'content',
        intervalDays,
        changeKey: null,
        ratePerDay: null,
        versionAgeDays,
      }),
      );
    // A: a dated baseline, a change, a stale visit and a zero interval (neither counts), an unchanged one.
    await observe(a, 1, 'baseline', null, 3);
    await observe(a, 2, 'changed', 1, 0.5);
    await observe(a, 3, 'stale', null);
    await observe(a, 4, 'unchanged', 0);
    await observe(a, 5, 'unchanged', 2, 5);
    // C: more visits than the window holds; B: none.
    for (let generation = 1; generation <= 6; generation += 1) await observe(c, generation, generation % 2 === 0 ? 'changed' : 'unchanged', generation);

    const windows = await inTransaction(harness.pool, (client) => recentObservationsOf(client, [c, b, a], 4));
    expect([...windows.keys()]).toEqual([c, b, a]);
    expect(windows.get(a)).toEqual({
      history: [
        { intervalDays: 1, changed: true, versionAgeDays: 0.5 },
        { intervalDays: 2, changed: false, versionAgeDays: 2 },
      ],
      baselineVersionAgeDays: 3,
    });
    expect(windows.get(b)).toEqual({ history: [], baselineVersionAgeDays: null });
    expect(windows.get(c)).toEqual({
      history: [3, 4, 5, 6].map((generation) => ({ intervalDays: generation, changed: generation % 2 === 0 })),
      baselineVersionAgeDays: null,
    });

    // A batch asks only for the visits that can compare: a URL observed before, this visit not yet recorded.
    await inTransaction(harness.pool, async (client) => {
      const evidenceOf = async (fingerprint: string, generation: number) => ({ fingerprint, evidence: await lockUrlEvidence(client, fingerprint, generation) });
      const observedBefore = (visit: Awaited<ReturnType<typeof evidenceOf>>) => ({
        ...visit,
        evidence: visit.evidence && { ...visit.evidence, evidence: { ...visit.evidence.evidence, lastObservedAtMs: T0 } },
      });
      const visits = [
        observedBefore(await evidenceOf(a, 6)),
        await evidenceOf(b, 1), // never observed: a baseline
        observedBefore(await evidenceOf(c, 6)), // this visit is recorded already: a replay
        { fingerprint: urlFingerprint(`http://${HOST}/unknown`), evidence: undefined },
      ];
      expect([...(await loadComparisonEvidence(client, visits)).keys()]).toEqual([a]);
    });
  });

  it("reads several hosts' group rates in one statement, each leaving out its own page", async () => {
    const hosts = ['127.71.2.5', '127.71.2.6', '127.71.2.7'];
    const pages = hosts.flatMap((host, h) => [1, 2, 3].map((n) => ({ host, url: `http://${host}/p${n}`, rate: (h + 1) * 10 + n })));
    await recordUrlIdentities(
      harness.pool,
      pages.map(({ host, url }) => ({ fingerprint: urlFingerprint(url), url, canonicalizationVersion: 1, host, origin: `http://${host}` })),
    );
    // The third host's pages were never compared: no rate counts.
    for (const page of pages) {
      await harness.pool.query('UPDATE urls SET change_observations = $2, change_rate_per_day = $3 WHERE fingerprint = $1', [
        fingerprintToBytes(urlFingerprint(page.url)),
        page.host === hosts[2] ? 0 : 1,
        page.rate,
      ]);
    }
    const groups = await inTransaction(harness.pool, (client) =>
      hostChangeRatesOf(
        client,
        [
          { host: hosts[1]!, excludeFingerprint: urlFingerprint(`http://${hosts[1]}/p2`) },
          { host: hosts[0]!, excludeFingerprint: urlFingerprint(`http://${hosts[0]}/p1`) },
          { host: hosts[2]!, excludeFingerprint: urlFingerprint(`http://${hosts[2]}/p1`) },
        ],
        10,
      ),
    );
    expect(groups.map((rates) => [...rates].sort((x, y) => x - y))).toEqual([[21, 23], [12, 13], []]);
  });
});
