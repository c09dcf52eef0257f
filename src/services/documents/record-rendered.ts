/**
 * Records a render's yield (docs/rendering.md): the links of the rendered DOM go through the same
 * registration as an HTTP page's (canonicalization, scope, depth, traps, the seen test), its
 * document is recorded beside the HTTP one under RENDERED_PARSER_VERSION and clustered for near
 * duplicates, and its render row, browser requests and new hash routes commit with them. A render
 * replayed after its commit finds its row ended and adds nothing.
 */
import type { RenderBudget } from '../../domain/render/index.js';
import { recordDocument } from '../../storage/postgres/document-repository.js';
import { lowerFrontierDepthsTo } from '../../storage/postgres/frontier-depths.js';
import { inTransaction } from '../../storage/postgres/pool.js';
import { addRouteRenders, finishRender, recordSubresources, type RenderKey, type RenderResultRow, type RenderTaskRow, type SubresourceRow } from '../../storage/postgres/render-repository.js';
import type { ActivityDeps } from '../deps.js';
import { registerLinksOfPages } from '../frontier/link-registration.js';
import { clusterNearDuplicatesOf } from './near-duplicates.js';
import { PARSER_VERSION, documentRecordOf, type AnalyzedPage } from './page-analysis.js';

/**
 * The parser version a rendered DOM's document is kept under: the browser and the parser together
 * are another extractor, and the document of a page's render sits beside its HTTP one (same
 * fingerprint and generation). Above every HTTP parser version, so the near-duplicate index takes
 * the rendered text as the page's within a generation, and the next generation's parse replaces it.
 */
export const RENDERED_PARSER_VERSION = 1000 + PARSER_VERSION;

export interface RenderedRecordInput {
  key: RenderKey;
  page: AnalyzedPage;
  result: Omit<RenderResultRow, 'linksRegistered'>;
  subresources: readonly SubresourceRow[];
  /** Hash routes found in the rendered DOM, to record as render tasks within the budget. */
  routes: readonly RenderTaskRow[];
  budget: RenderBudget;
}

export interface RenderedRecord {
  /** False: the render had ended before (a replay); nothing was written. */
  recorded: boolean;
  linksRegistered: number;
  /** Route keys now pending as render tasks. */
  routesPending: string[];
}

export async function recordRenderedPage(deps: ActivityDeps, input: RenderedRecordInput): Promise<RenderedRecord> {
  const { page, key } = input;
  const context = page.context;
  const outcome = await inTransaction(deps.pool, async (client) => {
    const linked = await registerLinksOfPages(client, context, [
      { sourceFingerprint: page.fingerprint, depth: page.input.depth + 1, urls: page.links, kind: 'link', nowMs: deps.now(), sourceContentHash: page.normalizedHash },
    ]);
    const linksRegistered = linked.results[0]?.registered ?? 0;
    const recorded = await finishRender(client, key, { ...input.result, linksRegistered });
    if (!recorded) return { recorded: false, linksRegistered: 0, routesPending: [], lowerAfterCommit: [] };
    await recordSubresources(client, key, input.subresources);
    if (key.routeKey === '') {
      // The page's own render: its document beside the HTTP one, and its near duplicates by the rendered text.
      await recordDocument(client, documentRecordOf(page, RENDERED_PARSER_VERSION, linksRegistered, { rendered: { domBodyKey: input.result.domBodyKey, ended: input.result.ended } }));
      await clusterNearDuplicatesOf(client, [{ fingerprint: page.fingerprint, generation: page.input.generation, parserVersion: RENDERED_PARSER_VERSION, simhash: page.simhash, minhash: page.minhash }]);
    }
    const routesPending = await addRouteRenders(client, input.routes, input.budget);
    return { recorded: true, linksRegistered, routesPending, lowerAfterCommit: linked.lowerAfterCommit };
  });
  if (outcome.lowerAfterCommit.length > 0) await lowerFrontierDepthsTo(deps.pool, context.record.id, outcome.lowerAfterCommit);
  return { recorded: outcome.recorded, linksRegistered: outcome.linksRegistered, routesPending: outcome.routesPending };
}
