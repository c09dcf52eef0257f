// The render decision on a mixed web, labelled by how each site is built: static pages (some with
// analytics, or a framework's server-rendered markers and full text) and pages built in the
// browser (Vue, a plain bundle, a shell asking for JavaScript, a thin Angular page). The pages
// rendered are the ones that need it, by precision and recall against the labels, and every link
// behind JavaScript is found.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RENDER_CONFIG } from '../../src/config/render-config.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { MIXED_SITE_KINDS, NEEDS_RENDER, mixedRenderWeb, startRenderWeb, type MixedSite, type RenderWeb } from '../support/render-web.js';

describe('the render decision on a mixed web', () => {
  const crawlId = 'rendering-mixed-web';
  let harness: Harness;
  let web: RenderWeb;
  let sites: MixedSite[];

  beforeAll(async () => {
    const built = mixedRenderWeb(MIXED_SITE_KINDS.map((_, i) => `127.74.0.${i + 1}`));
    sites = built.sites;
    web = await startRenderWeb(built.hosts);
    harness = await createHarness('rendering-mixed-web');
    await harness.startWorker({ renderSlots: 1 });
    const summary = await harness.runCrawl({
      crawlId,
      seeds: sites.map((site) => web.origin(site.address) + '/'),
      config: { minHostDelayMs: 50, maxPages: 100, render: { ...DEFAULT_RENDER_CONFIG, mode: 'auto' } },
    });
    expect(summary.state).toBe('finished');
  }, 240_000);

  afterAll(async () => {
    await harness?.close();
    await web?.close();
  });

  it('renders the pages that need it: precision and recall at least 0.95 against the labels', async () => {
    const rendered = new Set((await harness.pool.query<{ url: string }>(`SELECT url FROM renders WHERE crawl_id = $1 AND route_key = ''`, [crawlId])).rows.map((row) => row.url));
    let truePositives = 0;
    let falsePositives = 0;
    let falseNegatives = 0;
    const wrong: string[] = [];
    for (const site of sites) {
      for (const path of site.paths) {
        const url = web.origin(site.address) + path;
        const needs = NEEDS_RENDER.has(site.kind);
        const did = rendered.has(url);
        if (needs && did) truePositives += 1;
        else if (!needs && did) {
          falsePositives += 1;
          wrong.push(`${site.kind} ${path} rendered`);
        } else if (needs && !did) {
          falseNegatives += 1;
          wrong.push(`${site.kind} ${path} not rendered`);
        }
      }
    }
    const precision = truePositives / (truePositives + falsePositives);
    const recall = truePositives / (truePositives + falseNegatives);
    console.log(`[mixed web] rendered ${truePositives + falsePositives}, needed ${truePositives + falseNegatives}: precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)}`);
    expect(wrong).toEqual([]);
    expect(precision).toBeGreaterThanOrEqual(0.95);
    expect(recall).toBeGreaterThanOrEqual(0.95);
  });

  it('finds every link behind JavaScript: every page of every site fetched', async () => {
    const done = new Set((await harness.pool.query<{ url: string }>(`SELECT url FROM frontier WHERE crawl_id = $1 AND state = 'done'`, [crawlId])).rows.map((row) => row.url));
    const missing = sites.flatMap((site) => site.paths.map((path) => web.origin(site.address) + path)).filter((url) => !done.has(url));
    expect(missing).toEqual([]);
  });
});
