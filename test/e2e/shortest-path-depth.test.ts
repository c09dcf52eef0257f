// maxDepth counts the shortest path from the seeds, whatever order pages are parsed in. Host A
// is a chain of pages, so its page /p is first found five links deep and its links are refused
// beyond maxDepth; host B's home answers late and links to /p: two links deep. The crawl must
// then lower /p's depth and register its links again, down the pages that lowers (/x, then /y).
// Real stack; what was fetched comes from the server's log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priorityOfDiscovery } from '../../src/services/frontier/link-registration.js';
import { resolveCrawlConfig } from '../../src/config/crawl-config.js';
import { urlFingerprint } from '../../src/domain/url/index.js';
import { createCrawl } from '../../src/storage/postgres/crawl-repository.js';
import { lowerFrontierDepths, takeStaleLinkPage } from '../../src/storage/postgres/frontier-depths.js';
import { registerFrontierEntries, type NewFrontierEntry } from '../../src/storage/postgres/frontier-registration.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { renderHtmlPage, startTestWeb, type PageSpec, type TestWeb, type WebSpec } from '../support/test-web/index.js';

const HOST_A = '127.68.0.1';
const HOST_B = '127.68.0.2';
const MAX_DEPTH = 5;
/** Long enough for host A's chain (five parses one after another) to be parsed before B answers. */
const LATE_HOME_DELAY_MS = 12_000;

const page = (path: string, links: string[], extra: Partial<PageSpec> = {}): PageSpec => ({
  path,
  body: renderHtmlPage({
    title: `Page ${path}`,
    links: links.map((href) => ({ href, text: `to ${href}` })),
    paragraphs: [`This is ${path}, a page with words of its own: ${path.split('').reverse().join(' ')} and more.`],
  }),
  ...extra,
});

const spec: WebSpec = {
  hosts: [
    {
      host: HOST_A,
      robotsTxt: 'User-agent: *\nAllow: /\n',
      pages: [
        page('/', ['/c1', `http://${HOST_B}:{port}/`]),
        page('/c1', ['/c2']),
        page('/c2', ['/c3']),
        page('/c3', ['/c4']),
        page('/c4', ['/p']),
        page('/p', ['/x']),
        page('/x', ['/y']),
        page('/y', []),
      ],
    },
    {
      host: HOST_B,
      robotsTxt: 'User-agent: *\nAllow: /\n',
      pages: [page('/', [`http://${HOST_A}:{port}/p`], { delayMs: LATE_HOME_DELAY_MS })],
    },
  ],
};

describe('depth is the shortest path from the seeds', () => {
  const crawlId = 'shortest-path-depth';
  let harness: Harness;
  let web: TestWeb;

  beforeAll(async () => {
    web = await startTestWeb(spec);
    harness = await createHarness('shortest-path-depth');
    await harness.startWorker();
    const summary = await harness.runCrawl({ crawlId, seeds: [web.url(HOST_A, '/')], config: { minHostDelayMs: 20, maxDepth: MAX_DEPTH, maxPages: 50 } });
    expect(summary.state).toBe('finished');
    // /x was refused beyond maxDepth, then admitted by the shorter path: the depth limit left nothing out.
    expect(summary.end).toEqual({ reason: 'nothing-left', queuedLeft: 0 });
  }, 120_000);

  afterAll(async () => {
    await harness?.close();
    await web?.close();
  });

  const depthOf = async (url: string): Promise<number | undefined> => {
    const result = await harness.pool.query<{ depth: number }>('SELECT depth FROM frontier WHERE crawl_id = $1 AND fingerprint = $2', [
      crawlId,
      Buffer.from(urlFingerprint(url), 'hex'),
    ]);
    return result.rows[0]?.depth;
  };

  it('first found /p five links deep and refused its link beyond maxDepth (the case under test happened)', async () => {
    const pFetched = web.log().find((entry) => entry.host === HOST_A && entry.path === '/p');
    const lateHome = web.log().find((entry) => entry.host === HOST_B && entry.path === '/');
    expect(pFetched).toBeDefined();
    expect(lateHome).toBeDefined();
    expect(pFetched!.finishedAtMs).toBeLessThan(lateHome!.finishedAtMs);
    const refused = await harness.pool.query<{ reason: string }>('SELECT reason FROM crawl_rejections WHERE crawl_id = $1 AND fingerprint = $2', [
      crawlId,
      Buffer.from(urlFingerprint(web.url(HOST_A, '/x')), 'hex'),
    ]);
    expect(refused.rows.map((row) => row.reason.split(':')[0])).toEqual(['depth']);
  });

  it('lowered /p to the shorter path and fetched what its links lead to, once each', async () => {
    expect(await depthOf(web.url(HOST_A, '/p'))).toBe(2);
    expect(await depthOf(web.url(HOST_A, '/x'))).toBe(3);
    expect(await depthOf(web.url(HOST_A, '/y'))).toBe(4);
    const requests = web.log().filter((entry) => entry.path !== '/robots.txt');
    const fetched = requests.map((entry) => `${entry.host}${entry.path}`).sort();
    expect(fetched).toEqual([...['/', '/c1', '/c2', '/c3', '/c4', '/p', '/x', '/y'].map((path) => `${HOST_A}${path}`), `${HOST_B}/`].sort());
  });

  it('keeps the longer chain at its own depths, and finished with no page waiting to relink', async () => {
    expect(await depthOf(web.url(HOST_A, '/c4'))).toBe(4);
    expect(await depthOf(web.url(HOST_B, '/'))).toBe(1);
    const stale = await harness.pool.query('SELECT 1 FROM frontier WHERE crawl_id = $1 AND links_stale', [crawlId]);
    expect(stale.rows).toHaveLength(0);
  });
});

describe('lowerFrontierDepths', () => {
  let harness: Harness;
  const crawlId = 'lower-depths';
  const entry = (path: string, depth: number, demoted = false): NewFrontierEntry => {
    const url = `http://127.68.0.9/${path}`;
    return {
      fingerprint: urlFingerprint(url),
      url,
      host: '127.68.0.9',
      origin: 'http://127.68.0.9',
      canonicalizationVersion: 1,
      depth,
      ...priorityOfDiscovery({ depth, trapPenalty: demoted ? 0.5 : 0 }),
      ...(demoted ? { demotion: [{ code: 'path-repetition', action: 'demote', detail: 'test' }] } : {}),
    };
  };
  const deep = entry('deep', 5);
  const demoted = entry('demoted', 5, true);
  const shallow = entry('shallow', 1);
  const parsed = entry('parsed', 5);
  const rowOf = async (fingerprint: string) =>
    (
      await harness.pool.query<{ depth: number; priority: number; tier: number }>('SELECT depth, priority, tier FROM frontier WHERE crawl_id = $1 AND fingerprint = $2', [
        crawlId,
        Buffer.from(fingerprint, 'hex'),
      ])
    ).rows[0];

  beforeAll(async () => {
    harness = await createHarness('lower-depths');
    await createCrawl(harness.pool, { id: crawlId, config: resolveCrawlConfig({ allowPrivateNetworks: true }), seedHosts: ['127.68.0.9'] });
    await registerFrontierEntries(harness.pool, crawlId, [deep, demoted, shallow, parsed], { respectDiscoveryBudget: false });
    await harness.pool.query(`UPDATE frontier SET state = 'done' WHERE crawl_id = $1 AND fingerprint = $2`, [crawlId, Buffer.from(parsed.fingerprint, 'hex')]);
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('lowers only deeper rows, raises the priority of those not demoted, and reports their state', async () => {
    const atTwo = priorityOfDiscovery({ depth: 2, trapPenalty: 0 });
    const lowered = await lowerFrontierDepths(harness.pool, crawlId, [deep.fingerprint, demoted.fingerprint, shallow.fingerprint], 2, atTwo);
    expect(lowered.map((row) => row.fingerprint).sort()).toEqual([deep.fingerprint, demoted.fingerprint].sort());
    expect(lowered.every((row) => row.state === 'queued')).toBe(true);
    expect(await rowOf(deep.fingerprint)).toEqual({ depth: 2, priority: expect.closeTo(atTwo.priority, 5), tier: atTwo.tier });
    expect(atTwo.priority).toBeGreaterThan(deep.priority);
    // A trap's demotion stays: only its depth changes.
    expect(await rowOf(demoted.fingerprint)).toEqual({ depth: 2, priority: expect.closeTo(demoted.priority, 5), tier: demoted.tier });
    expect(await rowOf(shallow.fingerprint)).toEqual({ depth: 1, priority: expect.closeTo(shallow.priority, 5), tier: shallow.tier });
    // Again: nothing is deeper now.
    expect(await lowerFrontierDepths(harness.pool, crawlId, [deep.fingerprint, demoted.fingerprint], 2, atTwo)).toEqual([]);
    // Queued pages have not registered links yet: none waits for the tick.
    expect(await takeStaleLinkPage(harness.pool, crawlId)).toBeUndefined();
  });

  it('marks a parsed page for its links to be registered again, once, at its new depth', async () => {
    const atThree = priorityOfDiscovery({ depth: 3, trapPenalty: 0 });
    expect(await lowerFrontierDepths(harness.pool, crawlId, [parsed.fingerprint], 3, atThree)).toEqual([{ fingerprint: parsed.fingerprint, state: 'done' }]);
    expect(await takeStaleLinkPage(harness.pool, crawlId)).toEqual({ fingerprint: parsed.fingerprint, depth: 3 });
    expect(await takeStaleLinkPage(harness.pool, crawlId)).toBeUndefined();
  });
});
