// A seeds file of a million lines: checked whole before anything starts, streamed into the
// frontier in batches by the CLI (the crawl workflow's input would exceed Temporal's payload
// limit), every seed registered once; past the documented limit, a clear error and nothing started.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SEEDS } from '../../src/cli/seeds-file.js';
import type { CrawlSummary } from '../../src/contracts/status.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { runCrawlerCli, type CliResult } from '../support/crawler-process.js';
import { flatWeb } from '../support/flat-web.js';
import { startTestWeb, type TestWeb } from '../support/test-web/index.js';

/** Writes `count` seeds, the web's own pages first, then distinct URLs on its hosts that answer 404. */
async function writeSeedsFile(file: string, pages: string[], hostsBase: string[], count: number): Promise<void> {
  const out = createWriteStream(file);
  out.write('# a large seeds file\n');
  for (const page of pages) out.write(`${page}\n`);
  for (let i = pages.length; i < count; i++) {
    if (!out.write(`${hostsBase[i % hostsBase.length]}/seed/${i}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

describe('a million-line seeds file', () => {
  let harness: Harness;
  let web: TestWeb;
  let dir: string;
  let result: CliResult;
  const crawlId = `large-seeds-${Date.now()}`;
  const site = flatWeb({ base: '127.77.0.1', hosts: 2, pagesPerHost: 5 });

  beforeAll(async () => {
    web = await startTestWeb({ hosts: site.specs });
    harness = await createHarness('e2e-large-seeds');
    dir = await mkdtemp(path.join(tmpdir(), 'crawler-seeds-'));
    const file = path.join(dir, 'seeds.txt');
    await writeSeedsFile(file, site.allPageUrls(web.port), site.hosts.map((host) => `http://${host}:${web.port}`), MAX_SEEDS);
    // The page budget ends the crawl after a few fetches: what is checked is the registration.
    result = await runCrawlerCli(harness, ['crawl', '--seeds-file', file, '--crawl-id', crawlId, '--allow-private-networks', '--max-pages', '12', '--min-host-delay-ms', '20', '--task-queue', harness.taskQueue, '--json']);
  }, 600_000);

  afterAll(async () => {
    await harness?.close();
    await web?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('registers every seed once and ends on its page budget, one JSON summary on stdout', async () => {
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as CrawlSummary;
    expect(summary.state).toBe('finished');
    expect(summary.end).toMatchObject({ reason: 'page-budget', limit: { field: 'maxPages', value: 12 }, flag: '--max-pages' });
    expect(summary.end!.queuedLeft).toBeGreaterThan(MAX_SEEDS - 100);
    // Beside them, each seed origin's /sitemap.xml (purpose 'sitemap').
    const rows = await harness.pool.query<{ n: number; seeds: number }>(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE depth = 0)::int AS seeds FROM frontier WHERE crawl_id = $1 AND purpose = 'discovery'`,
      [crawlId],
    );
    expect(rows.rows[0]).toEqual({ n: MAX_SEEDS, seeds: MAX_SEEDS });
  });

  it('refuses a file past the limit, and one with a bad line, naming it, before anything starts', async () => {
    const tooMany = path.join(dir, 'too-many.txt');
    await writeSeedsFile(tooMany, [], ['http://127.77.9.1'], MAX_SEEDS + 1);
    const refused = await runCrawlerCli(harness, ['crawl', '--seeds-file', tooMany, '--crawl-id', `${crawlId}-too-many`]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`has more than ${MAX_SEEDS.toLocaleString('en')} seeds (line ${MAX_SEEDS + 2})`);
    const bad = path.join(dir, 'bad.txt');
    await writeFile(bad, 'http://127.77.9.1/a\n\nftp://127.77.9.1/b\n');
    const invalid = await runCrawlerCli(harness, ['crawl', '--seeds-file', bad, '--crawl-id', `${crawlId}-bad`]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/invalid seed URL 'ftp:\/\/127\.77\.9\.1\/b' on line 3 of .*bad\.txt/);
    const started = await harness.pool.query(`SELECT 1 FROM crawls WHERE id IN ($1, $2)`, [`${crawlId}-too-many`, `${crawlId}-bad`]);
    expect(started.rowCount).toBe(0);
  }, 120_000);
});
