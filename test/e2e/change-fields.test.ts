// Change detection on configured fields (CrawlConfig.changeFields), on the real stack: a first
// crawl of a small shop with changeFields { price: '.price' }, then a recrawl cycle from a Schedule
// the CLI created with --change-field price=.price, after the shop changed a price on one page and
// only the prose on another. Then a cycle with another field set, which must start new baselines.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCrawlConfig } from '../../src/config/crawl-config.js';
import { fieldSetScheme } from '../../src/domain/recrawl/index.js';
import { PARSER_VERSION } from '../../src/services/documents/page-analysis.js';
import type { RecrawlCycleResult } from '../../src/workflows/recrawl-cycle-workflow.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { startTestWeb, type TestWeb, type WebSpec } from '../support/test-web/index.js';

const execFileAsync = promisify(execFile);
const HOST = '127.37.0.1';
const MIN_DELAY_MS = 100;
const PRICE_ONLY = { price: '.price' };
const PRICE_AND_NAME = { price: '.price', name: 'h1' };

const product = (name: string, price: string, prose: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${name}</title></head><body>` +
  `<nav><a href="/">Shop</a></nav><h1>${name}</h1><p>${prose}</p>` +
  // The price sits in a form, which is page chrome for the main text: only the field sees it.
  `<form action="/cart"><span class="price">${price}</span><button>Add to cart</button></form></body></html>`;

function shop(phase: 'before' | 'after'): WebSpec {
  const before = phase === 'before';
  return {
    hosts: [
      {
        host: HOST,
        robotsTxt: 'User-agent: *\nAllow: /\n',
        pages: [
          { path: '/', body: '<!doctype html><html><head><title>Shop</title></head><body><h1>Shop</h1><a href="/kettle">Kettle</a> <a href="/teapot">Teapot</a> <a href="/about">About</a></body></html>' },
          // A new price, the same prose: a change.
          { path: '/kettle', body: product('Kettle', before ? '$19.99' : '$17.49', 'A steel kettle that boils a litre in three minutes.') },
          // The same price (its "as of" date masked as in the main text), new prose: no change.
          {
            path: '/teapot',
            body: product(
              'Teapot',
              before ? '$24.00 (as of 2026-01-05)' : '$24.00 (as of 2026-01-06)',
              before ? 'A porcelain teapot for four cups.' : 'A porcelain teapot for four cups, now also in blue. Customers love it.',
            ),
          },
          // No price at all: compared by its main text, so new prose is a change.
          {
            path: '/about',
            body: `<!doctype html><html><head><title>About</title></head><body><h1>About</h1><p>${before ? 'A family shop since 1990.' : 'A family shop since 1990, now online.'}</p></body></html>`,
          },
        ],
      },
    ],
  };
}

describe('change detection on configured fields', () => {
  let harness: Harness;
  let web: TestWeb;
  let recrawl: RecrawlCycleResult;
  let reconfigured: RecrawlCycleResult;
  const scheduleId = `fields-e2e-${randomBytes(3).toString('hex')}`;
  const url = (path: string): string => `http://${HOST}:${web.port}${path}`;

  const crawler = async (...args: string[]): Promise<string> => (await execFileAsync('node', ['bin/crawler.js', ...args], { env: harness.childEnv })).stdout;

  /** Triggers the Schedule and waits for the cycle it starts (its first action). */
  async function triggerFirstCycle(): Promise<RecrawlCycleResult> {
    const handle = harness.client.schedule.getHandle(scheduleId);
    await handle.trigger();
    for (let i = 0; i < 300; i += 1) {
      const action = (await handle.describe()).info.recentActions[0];
      if (action) return (await harness.client.workflow.getHandle(action.action.workflow.workflowId).result()) as RecrawlCycleResult;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`schedule ${scheduleId} took no action within a minute`);
  }

  beforeAll(async () => {
    web = await startTestWeb(shop('before'));
    harness = await createHarness('e2e-change-fields');
    await harness.startWorker();
    const first = await harness.runCrawl({ crawlId: 'fields-first', seeds: [url('/')], config: { minHostDelayMs: MIN_DELAY_MS, changeFields: PRICE_ONLY } });
    expect(first.state).toBe('finished');

    web.update(shop('after'));
    await crawler(
      'schedule', 'create', '--id', scheduleId, '--every', '1h', '--budget', '20', '--task-queue', harness.taskQueue,
      '--allow-private-networks', '--scope', 'any', '--min-host-delay-ms', String(MIN_DELAY_MS), '--tick-interval-ms', '500',
      '--change-field', 'price=.price',
    );
    recrawl = await triggerFirstCycle();

    // The same pages once more, due now, under another field set and with nothing changed on them.
    // Seen to change seconds apart, they are worth a visit only to cycles seconds apart: an hourly
    // cycle's budget would go to the one page that changed least (the cycle allocates its visits as
    // the optimum does).
    await harness.pool.query('UPDATE urls SET next_fetch_at = now() - interval \'1 second\'');
    reconfigured = (await harness.client.workflow.execute('recrawlCycleWorkflow', {
      workflowId: `recrawl/${scheduleId}-reconfigured`,
      taskQueue: harness.taskQueue,
      args: [
        {
          settings: { budget: 20, everyMs: 5_000 },
          config: resolveCrawlConfig({
            allowPrivateNetworks: true,
            scope: { mode: 'any', allowPrefixes: [], denyPrefixes: [] },
            minHostDelayMs: MIN_DELAY_MS,
            changeFields: PRICE_AND_NAME,
          }),
          taskQueue: harness.taskQueue,
          crawlOptions: { tickIntervalMs: 500 },
        },
      ],
    })) as RecrawlCycleResult;
  });

  afterAll(async () => {
    await harness?.client.schedule.getHandle(scheduleId).delete().catch(() => undefined);
    await harness?.close();
    await web?.close();
  });

  const observationsOf = async (path: string) =>
    (
      await harness.pool.query<{ verdict: string; source: string; change_key: string; crawl_id: string }>(
        `SELECT o.verdict, o.source, o.change_key, o.crawl_id FROM url_observations o JOIN urls u USING (fingerprint) WHERE u.url = $1 ORDER BY o.generation`,
        [url(path)],
      )
    ).rows;
  const documentsOf = async (path: string) =>
    (
      await harness.pool.query<{ extracted: { changeFields?: Record<string, string> }; normalized_hash: Buffer }>(
        `SELECT d.extracted, d.normalized_hash FROM documents d JOIN urls u USING (fingerprint) WHERE u.url = $1 ORDER BY d.generation`,
        [url(path)],
      )
    ).rows;
  const schemeOf = (key: string): string => key.slice(0, key.indexOf(':'));

  it('recrawls every product page through the Schedule the CLI created with --change-field', async () => {
    expect(recrawl.summary.state).toBe('finished');
    for (const path of ['/', '/kettle', '/teapot', '/about']) {
      expect((await observationsOf(path)).map((o) => o.crawl_id), path).toEqual(['fields-first', recrawl.crawlId, reconfigured.crawlId]);
    }
    const stored = await harness.pool.query<{ config: { changeFields: unknown } }>('SELECT config FROM crawls WHERE id = $1', [recrawl.crawlId]);
    expect(stored.rows[0]!.config.changeFields).toEqual(PRICE_ONLY);
  });

  it('sees a new price as a change', async () => {
    expect((await observationsOf('/kettle')).slice(0, 2).map((o) => [o.verdict, o.source])).toEqual([
      ['baseline', 'content'],
      ['changed', 'content'],
    ]);
    expect((await documentsOf('/kettle')).slice(0, 2).map((d) => d.extracted.changeFields)).toEqual([{ price: '$19.99' }, { price: '$17.49' }]);
  });

  it('sees new prose around an unchanged price as no change, though the main text changed', async () => {
    expect((await observationsOf('/teapot')).slice(0, 2).map((o) => o.verdict)).toEqual(['baseline', 'unchanged']);
    const [before, after] = await documentsOf('/teapot');
    // Without the field, this visit would have been a change.
    expect(after!.normalized_hash.equals(before!.normalized_hash)).toBe(false);
    expect([before!.extracted.changeFields, after!.extracted.changeFields]).toEqual([{ price: '$24.00 (as of 2026-01-05)' }, { price: '$24.00 (as of 2026-01-06)' }]);
  });

  it('compares a page without the fields by its main text, under the same scheme', async () => {
    const about = await observationsOf('/about');
    expect(about.slice(0, 2).map((o) => o.verdict)).toEqual(['baseline', 'changed']);
    expect((await observationsOf('/')).slice(0, 2).map((o) => o.verdict)).toEqual(['baseline', 'unchanged']);
    expect((await documentsOf('/about'))[0]!.extracted.changeFields).toEqual({ price: '' });
  });

  it('keys every visit by the field set, and starts new baselines when the fields change', async () => {
    for (const path of ['/', '/kettle', '/teapot', '/about']) {
      const observations = await observationsOf(path);
      expect(observations.map((o) => schemeOf(o.change_key)), path).toEqual([
        fieldSetScheme(PARSER_VERSION, PRICE_ONLY),
        fieldSetScheme(PARSER_VERSION, PRICE_ONLY),
        fieldSetScheme(PARSER_VERSION, PRICE_AND_NAME),
      ]);
      // Nothing changed on the pages since the recrawl: a baseline, not a false change.
      expect(observations[2]!.verdict, path).toBe('baseline');
    }
    expect(reconfigured.summary).toMatchObject({ changed: 0, baselines: 4 });
    expect((await documentsOf('/kettle'))[2]!.extracted.changeFields).toEqual({ price: '$17.49', name: 'Kettle' });
  });
});
