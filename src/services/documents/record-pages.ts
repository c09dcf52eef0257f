/**
 * Records analyzed pages of one crawl (page-analysis.ts) in one transaction, keyed by (fingerprint,
 * generation, parser version) so a replay changes nothing: their fetches' records (opening the
 * transaction), the new URLs their links found (link-registration.ts), their documents and
 * settlements, their visits (change detection) and their near-duplicate clusters. Each step is one
 * statement for the whole batch, whatever its size; the figures and page rows nothing reads back
 * go with COMMIT. Every page ends as if it had been recorded alone after the ones before it.
 */
import { tryCanonicalizeUrl } from '../../domain/url/index.js';
import { recordParsedPages } from '../../storage/postgres/document-repository.js';
import { fetchedBodiesStatement } from '../../storage/postgres/fetch-repository.js';
import { inTransaction, type PoolClient } from '../../storage/postgres/pool.js';
import type { CrawlContext } from '../frontier/crawl-context.js';
import type { ParseDocumentResult } from '../../contracts/activities.js';
import type { ActivityDeps } from '../deps.js';
import { loadComparisonEvidence, recordVisit } from './change-detection.js';
import { registerLinksOfPages, type PageLinkRegistrations, type RegistrationResult } from '../frontier/link-registration.js';
import { lowerFrontierDepthsTo } from '../../storage/postgres/frontier-depths.js';
import { recordListingReading } from './listing-reading.js';
import { clusterNearDuplicatesOf } from './near-duplicates.js';
import { canonicalRegistrations, hintsWaitingFor, settleCanonicalHints, type HintingPage } from './canonical-hints.js';
import { PARSER_VERSION, documentRecordOf, type AnalyzedPage } from './page-analysis.js';
import { markRenderPending, reserveRenders, type RenderTaskRow } from '../../storage/postgres/render-repository.js';
import { renderConfigOf } from '../../config/render-config.js';
import type { RenderWanted } from '../../contracts/activities.js';

/** Per page, the renders it wants that the budget let through (pending): deferred ones are recorded as such and not returned. */
async function reservePageRenders(client: Parameters<typeof reserveRenders>[0], pages: readonly AnalyzedPage[]): Promise<RenderWanted[][]> {
  const tasks: { page: number; wanted: RenderWanted; row: RenderTaskRow }[] = [];
  pages.forEach((page, index) => {
    for (const wanted of page.renderPlan?.wanted ?? []) {
      tasks.push({
        page: index,
        wanted,
        row: {
          crawlId: page.crawlId,
          fingerprint: page.fingerprint,
          generation: page.input.generation,
          routeKey: wanted.routeKey,
          host: new URL(page.input.url).hostname,
          url: page.input.url,
          pathTemplate: page.renderPlan!.pathTemplate,
          reason: wanted.reason,
          sampleBothWays: wanted.sampleBothWays,
        },
      });
    }
  });
  const pending: RenderWanted[][] = pages.map(() => []);
  if (tasks.length === 0) return pending;
  const reservations = await reserveRenders(
    client,
    tasks.map((task) => task.row),
    renderConfigOf(pages[0]!.context.record.config).budget,
  );
  tasks.forEach((task, i) => {
    if (reservations[i] === 'pending') pending[task.page]!.push(task.wanted);
  });
  return pending;
}

const NOTHING_REGISTERED: RegistrationResult = { registered: 0, edges: 0, rejected: [], outcomes: [] };

export async function recordAnalyzedPages(deps: ActivityDeps, pages: readonly AnalyzedPage[]): Promise<ParseDocumentResult[]> {
  if (pages.length === 0) return [];
  const context = pages[0]!.context;
  if (pages.some((page) => page.crawlId !== context.record.id)) throw new Error('recordAnalyzedPages: one batch records the pages of one crawl');
  const fetchRecords = pages.flatMap((page) => (page.fetchRecords ? [page.fetchRecords] : []));
  // The fetches' records open the transaction, sent with BEGIN: each page and its fetch commit together.
  const openWith = fetchRecords.length > 0 ? { openWith: fetchedBodiesStatement(fetchRecords) } : {};
  const { results, lowerAfterCommit } = await inTransaction(
    deps.pool,
    async (client) => {
      const linked = await registerPageLinks(client, deps, context, pages);
      const registrations = linked.results;
      // Renders within the crawl's budget keep their page in flight until they end; past it, deferred.
      const renders = await reservePageRenders(client, pages);
      const listings: ({ entries: number; changed: number } | undefined)[] = [];
      for (const page of pages) listings.push(page.listingEntries ? await recordListingReading(client, { readAtMs: page.readAtMs, entries: page.listingEntries }) : undefined);
      // The documents, the pages' settlements and the locks on their URLs' evidence in one round
      // trip. Settled before the near-duplicate step, which takes the index's key locks: they are
      // held to COMMIT, so nothing but that step and the writes sent with COMMIT come after them.
      const records = await recordParsedPages(
        client,
        pages.map((page, i) => ({
          document: documentRecordOf(page, PARSER_VERSION, registrations[i]!.registered, {
            charsetSource: page.charsetSource,
            ...(page.changeFields ? { changeFields: page.changeFields } : {}),
            ...(listings[i] ? { listing: listings[i] } : {}),
          }),
          // A page waiting for renders stays in flight ('fetched', where its fetch left it).
          settlement: { crawlId: page.crawlId, fingerprint: page.fingerprint, generation: page.input.generation, state: renders[i]!.length > 0 ? 'fetched' : 'done', outcome: 'ok' } as const,
        })),
      );
      await markRenderPending(
        client,
        context.record.id,
        pages.flatMap((page, i) => (renders[i]!.length > 0 ? [{ fingerprint: page.fingerprint, generation: page.input.generation }] : [])),
      );
      // Once per (fingerprint, generation, parser version): a replayed parse finds its document and adds nothing.
      const recorded = pages.filter((_, i) => records[i]!.recorded);
      const windows = await loadComparisonEvidence(
        client,
        pages.flatMap((page, i) => (records[i]!.recorded ? [{ fingerprint: page.fingerprint, evidence: records[i]!.evidence }] : [])),
      );
      await recordPageVisits(client, pages, records, windows);
      // Read before the near-duplicate step: the key locks it may take are held to COMMIT, and
      // every round trip after it holds up the parses of pages alike to these.
      const hinting = context.record.kind === 'signals' ? [] : recorded.map(hintingPageOf);
      const waitingHints = await hintsWaitingFor(client, hinting);
      await clusterNearDuplicatesOf(
        client,
        recorded.map((page) => ({ fingerprint: page.fingerprint, generation: page.input.generation, parserVersion: PARSER_VERSION, simhash: page.simhash, minhash: page.minhash })),
      );
      if (context.record.kind !== 'signals') await settleCanonicalHints(client, context, hinting, waitingHints);
      const results: ParseDocumentResult[] = pages.map((page, i) => ({
        title: page.title,
        linksFound: page.linksFound,
        linksRegistered: registrations[i]!.registered,
        noindex: page.noindex,
        nofollow: page.nofollow,
        ...(renders[i]!.length > 0 ? { renders: renders[i] } : {}),
      }));
      return { results, lowerAfterCommit: linked.lowerAfterCommit };
    },
    openWith,
  );
  // Rows other transactions held while this one held its pages' rows (registerLinksOfPages).
  if (lowerAfterCommit.length > 0) await lowerFrontierDepthsTo(deps.pool, context.record.id, lowerAfterCommit);
  return results;
}

/** The links of the pages, then their rel=canonical targets, registered in the pages' transaction; none for a signal sweep. */
async function registerPageLinks(client: PoolClient, deps: ActivityDeps, context: CrawlContext, pages: readonly AnalyzedPage[]): Promise<PageLinkRegistrations> {
  // A signal sweep only reads: its crawl fetches the sweep's sitemaps and listings, nothing they link to.
  if (context.record.kind === 'signals') return { results: pages.map(() => NOTHING_REGISTERED), lowerAfterCommit: [] };
  return registerLinksOfPages(client, context, [
    ...pages.map((page) => ({
      sourceFingerprint: page.fingerprint,
      depth: page.input.depth + 1,
      urls: page.links,
      kind: 'link' as const,
      nowMs: deps.now(),
      sourceContentHash: page.normalizedHash,
      ...hostOf(page.input.url),
    })),
    // After the pages' own: their rel=canonical targets (results past the pages' are theirs).
    ...canonicalRegistrations(context, pages.map(hintingPageOf), deps.now()),
  ]);
}

/** A visit (change detection) for each page recorded now; a replayed page's was recorded with it. */
async function recordPageVisits(
  client: PoolClient,
  pages: readonly AnalyzedPage[],
  records: Awaited<ReturnType<typeof recordParsedPages>>,
  windows: Awaited<ReturnType<typeof loadComparisonEvidence>>,
): Promise<void> {
  for (const [i, page] of pages.entries()) {
    if (!records[i]!.recorded) continue;
    await recordVisit(
      client,
      {
        fingerprint: page.fingerprint,
        generation: page.input.generation,
        crawlId: page.crawlId,
        observedAtMs: page.readAtMs,
        content: { kind: 'content', changeKey: page.changeKey },
        normalizedHash: page.textHash,
      },
      { evidence: records[i]!.evidence, recent: windows.get(page.fingerprint) },
    );
  }
}

function hintingPageOf(page: AnalyzedPage): HintingPage {
  return { fingerprint: page.fingerprint, depth: page.input.depth, canonicalHint: page.canonicalHint };
}

/** The page's host, whose links count as in-links of their targets (link-registration.ts). */
function hostOf(url: string): { sourceHost?: string } {
  const canonical = tryCanonicalizeUrl(url);
  return canonical.ok ? { sourceHost: canonical.value.host } : {};
}
