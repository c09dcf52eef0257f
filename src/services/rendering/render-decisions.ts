/**
 * The parse's render decision for one page (decideRender in src/domain/render), with the inputs
 * only a service has: the crawl's render settings, the template verdicts of the page's host (read
 * once per host and minute, and only when the decision can depend on them), and the draw.
 */
import { renderConfigOf } from '../../config/render-config.js';
import type { CrawlConfig } from '../../config/crawl-config.js';
import {
  decideRender,
  hashRoutesOf,
  pathTemplateOf,
  renderRuleFor,
  type RenderDecision,
  type RenderFeatures,
  type RenderVerdict,
} from '../../domain/render/index.js';
import { readRenderVerdict } from '../../storage/postgres/render-repository.js';
import type { Pool } from '../../storage/postgres/pool.js';
import type { RenderWanted } from '../../contracts/activities.js';

const VERDICT_TTL_MS = 60_000;

/** Template verdicts, cached per process: most pages of a template have none, and every page with scripts may ask. */
export class RenderVerdictCache {
  private readonly entries = new Map<string, { verdict: RenderVerdict | undefined; readAtMs: number }>();

  constructor(
    private readonly pool: Pool,
    private readonly now: () => number,
  ) {}

  async get(host: string, pathTemplate: string): Promise<RenderVerdict | undefined> {
    const key = `${host} ${pathTemplate}`;
    const cached = this.entries.get(key);
    if (cached && this.now() - cached.readAtMs < VERDICT_TTL_MS) return cached.verdict;
    const verdict = await readRenderVerdict(this.pool, host, pathTemplate);
    if (this.entries.size > 10_000) this.entries.clear();
    this.entries.set(key, { verdict, readAtMs: this.now() });
    return verdict;
  }

  /** A verdict this process just trained: used at once, not after the TTL. */
  remember(host: string, pathTemplate: string, verdict: RenderVerdict | undefined): void {
    this.entries.set(`${host} ${pathTemplate}`, { verdict, readAtMs: this.now() });
  }
}

/** What the parse decided for a page: its decision, and the renders it wants (the page, its hash routes). */
export interface PageRenderPlan {
  decision: RenderDecision;
  wanted: RenderWanted[];
  pathTemplate: string;
}

/**
 * The render plan of one page parsed from its HTTP body. Nothing is read when the crawl never
 * renders; a verdict is read only when the page has scripts and no strong evidence decides alone.
 */
export async function planPageRender(
  config: CrawlConfig,
  page: { finalUrl: string; features: RenderFeatures; hrefs: readonly string[] },
  verdicts: RenderVerdictCache,
  random: () => number,
): Promise<PageRenderPlan | undefined> {
  const render = renderConfigOf(config);
  if (render.mode === 'never') return undefined;
  const rules = { allow: render.allow, deny: render.deny };
  const input = { mode: render.mode, rules, url: page.finalUrl, features: page.features, source: 'http' as const, draw: random() };
  const pathTemplate = pathTemplateOf(page.finalUrl);
  let decision = decideRender(input);
  if (render.mode === 'auto' && page.features.scriptCount > 0 && (decision.reason === 'server-rendered' || decision.reason.startsWith('thin-page'))) {
    const verdict = await verdicts.get(new URL(page.finalUrl).hostname, pathTemplate);
    if (verdict?.verdict !== undefined) decision = decideRender({ ...input, verdict });
  }
  if (!decision.render) return { decision, wanted: [], pathTemplate };
  const wanted: RenderWanted[] = [{ routeKey: '', reason: decision.reason, sampleBothWays: decision.sampleBothWays }];
  // An allowlisted application's hash routes are screens of their own: render tasks with a route key.
  if (renderRuleFor(rules, page.finalUrl) === 'allow') {
    for (const routeKey of hashRoutesOf(page.hrefs, page.finalUrl)) wanted.push({ routeKey, reason: 'hash-route', sampleBothWays: false });
  }
  return { decision, wanted, pathTemplate };
}
