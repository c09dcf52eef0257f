/**
 * From discovered link to frontier entry (docs/design.md, "A URL's life": discover, canonicalize, dedup): canonicalize, scope, depth, the
 * seen test in tiers (Bloom filter, then the exact store), trap assessment, priority, then one
 * atomic insert per fingerprint. Used by the parser for links and by the fetcher for redirect
 * targets, so both follow the same rules. Every refusal is counted by reason, and a bounded
 * sample of the refused URLs is kept, so an operator can see what the crawl left out and why.
 *
 * The decisions are the domain's (domain/registration); this module reads and writes. A batch of
 * sources (the pages of one parse batch) registers in a fixed number of statements,
 * whatever its size: one read of everything the decisions need, then the writes. The decisions
 * are taken source by source, in order, as if each had registered alone after the ones before it:
 * a URL an earlier source of the batch registered is known to the later ones (and a shorter path
 * from a later one lowers its depth), and growth counts run on across the batch.
 */
import { sitemapPriorityCapOf } from '../../config/crawl-config.js';
import {
  decideRegistrations,
  depthLoweringsOf,
  growthOf,
  inlinkBumpsOf,
  prepareRegistrations,
  registrationResultsOf,
  seenFiguresOf,
  settleFates,
  type BatchDecision,
  type DepthLowering,
  type InsertOutcome,
  type RegistrationBatch,
  type RegistrationFacts,
  type RegistrationInput,
  type RegistrationResult,
  type RegistrationRules,
} from '../../domain/registration/index.js';
import { addCrawlCounters, counterShardOf } from '../../storage/postgres/crawl-counters.js';
import { recordLinks } from '../../storage/postgres/document-repository.js';
import { lowerFrontierDepthsTo } from '../../storage/postgres/frontier-depths.js';
import { addInlinks, insertFrontierEntries, recordUrlIdentities } from '../../storage/postgres/frontier-registration.js';
import type { PoolClient } from '../../storage/postgres/pool.js';
import { recordRejections } from '../../storage/postgres/rejection-repository.js';
import { addGrowthStats, addSeenStats, frontierDepths, readRegistrationFacts, recordContentGrowth } from '../../storage/postgres/url-scope-repository.js';
import type { CrawlContext } from './crawl-context.js';

export {
  MIN_PAGES_FOR_CONTENT_RATIO,
  priorityOfDiscovery,
  type DiscoveredUrl,
  type RegistrationGate,
  type RegistrationInput,
  type RegistrationResult,
  type UrlFate,
} from '../../domain/registration/index.js';

/** Registers one source's URLs, inside the caller's transaction. */
export async function registerDiscoveredUrls(client: PoolClient, context: CrawlContext, input: RegistrationInput): Promise<RegistrationResult> {
  return (await registerDiscoveredUrlsOfSources(client, context, [input]))[0]!;
}

/**
 * Registers the URLs of several sources, inside the caller's transaction, in a fixed number of
 * statements: as if each source had registered alone, in order (see the module comment). Sources
 * of one batch are all links or all redirects (only links spend the discovery budget).
 */
export async function registerDiscoveredUrlsOfSources(client: PoolClient, context: CrawlContext, inputs: readonly RegistrationInput[]): Promise<RegistrationResult[]> {
  return (await registerSources(client, context, inputs, 'wait')).results;
}

/** What registerLinksOfPages did, and what it leaves to its caller after COMMIT. */
export interface PageLinkRegistrations {
  results: RegistrationResult[];
  /**
   * Known URLs a shorter path reached whose frontier rows another transaction held (a page of
   * theirs being recorded, a claim): lowerFrontierDepthsTo them after COMMIT, in a statement of
   * their own. Lowering them again is harmless: only a row still deeper changes.
   */
  lowerAfterCommit: DepthLowering[];
}

/**
 * registerDiscoveredUrlsOfSources for the links of parsed pages, in the transaction that records
 * them. That transaction holds its pages' frontier rows from its first statement, so it must not
 * wait for a row another one holds: the other, recording a page this batch links to, may be
 * waiting for a URL this batch has just inserted, a deadlock Postgres breaks only after
 * deadlock_timeout, stalling the crawl's page recording meanwhile (bench/README.md, "Figures behind the defaults").
 * Such rows are lowered after COMMIT; a crash before that retries the parse, whose registration finds them
 * deeper again.
 */
export async function registerLinksOfPages(client: PoolClient, context: CrawlContext, inputs: readonly RegistrationInput[]): Promise<PageLinkRegistrations> {
  return registerSources(client, context, inputs, 'later');
}

/** `rowsHeldElsewhere`: whether a depth lowering waits for a row another transaction holds, or leaves it for after COMMIT. */
async function registerSources(
  client: PoolClient,
  context: CrawlContext,
  inputs: readonly RegistrationInput[],
  rowsHeldElsewhere: 'wait' | 'later',
): Promise<PageLinkRegistrations> {
  if (inputs.length === 0) return { results: [], lowerAfterCommit: [] };
  const crawlId = context.record.id;
  const rules = rulesOf(context);
  // One read of all the sources' facts, then the decisions, source by source.
  const batch = prepareRegistrations(inputs, rules);
  const facts = batch.query === undefined ? noFacts() : await readRegistrationFacts(client, crawlId, batch.query);
  const decision = decideRegistrations(batch, facts, rules);
  const outcome = await writeEntries(client, crawlId, batch, decision, facts);
  const lowerings = depthLoweringsOf(batch, outcome.present);
  const lowered = await lowerFrontierDepthsTo(client, crawlId, lowerings, { skipLocked: rowsHeldElsewhere === 'later' });
  await addInlinks(client, crawlId, inlinkBumpsOf(decision, facts, lowerings));
  const loweredNow = new Set(lowered.map((row) => row.fingerprint));
  // Not lowered: held elsewhere, or no longer deeper (the statement after COMMIT changes nothing then).
  const lowerAfterCommit = rowsHeldElsewhere === 'later' ? lowerings.filter((lowering) => !loweredNow.has(lowering.fingerprint)) : [];
  settleFates(batch, outcome, rules.maxDiscoveredUrls);
  if (context.seenFilter) {
    // Only what the exact store holds goes into the filter, so its positives stay meaningful.
    for (const fingerprint of [...outcome.inserted, ...outcome.present.keys(), ...facts.depths.keys()]) context.seenFilter.add(fingerprint);
  }
  await recordFigures(client, context, batch, decision, outcome.inserted, facts.rejectionsCounted);
  return { results: registrationResultsOf(batch, outcome.inserted), lowerAfterCommit };
}

function rulesOf(context: CrawlContext): RegistrationRules {
  const { config } = context.record;
  return {
    canonicalizeOptions: context.canonicalizeOptions,
    scope: context.scope,
    traps: context.traps,
    seenFilter: context.seenFilter,
    maxDepth: config.maxDepth,
    maxDiscoveredUrls: config.maxDiscoveredUrls,
    sitemapPriorityCap: sitemapPriorityCapOf(config),
  };
}

/**
 * Writes, each multi-row one in key order so concurrent registrations never deadlock: the
 * sources' content growth, the edges, then the atomic check-and-insert, where the (crawl,
 * fingerprint) primary key decides whatever the filter said. Redirect targets were asked for by
 * a URL already admitted; they do not spend the discovery budget. Per-crawl figures go to the
 * counter shard of each source page, so pages of one crawl do not queue on one row, and are
 * written at COMMIT in one global order (holdRows).
 */
async function writeEntries(client: PoolClient, crawlId: string, batch: RegistrationBatch, decision: BatchDecision, facts: RegistrationFacts): Promise<InsertOutcome> {
  const { sources } = batch;
  for (const { input } of sources) {
    if (input.sourceContentHash !== undefined) await recordContentGrowth(client, { crawlId, fingerprint: input.sourceFingerprint, normalizedHash: input.sourceContentHash });
  }
  await recordLinks(client, crawlId, sources.flatMap((source) => source.edges));
  const { entries } = decision;
  await recordUrlIdentities(client, [...entries, ...sources.flatMap((source) => source.tooDeep)]);
  const room = batch.respectDiscoveryBudget ? (facts.discoveryRoom ?? 0) : entries.length;
  const inserted = new Set(await insertFrontierEntries(client, crawlId, entries, { room, includeFetched: false }));
  for (const source of sources) {
    const discovered = source.entries.filter((entry) => inserted.has(entry.fingerprint)).length;
    await addCrawlCounters(client, crawlId, counterShardOf(source.input.sourceFingerprint), { discovered });
  }
  // Those not inserted: there already (another worker registered them meanwhile), or over budget.
  const present = await frontierDepths(client, crawlId, entries.filter((entry) => !inserted.has(entry.fingerprint)).map((entry) => entry.fingerprint));
  return { inserted, present, budgetBound: room < entries.length };
}

/** Figures for operators: growth, trap drops, refusals, the seen test. */
async function recordFigures(
  client: PoolClient,
  context: CrawlContext,
  batch: RegistrationBatch,
  decision: BatchDecision,
  inserted: ReadonlySet<string>,
  rejectionsCounted: number,
): Promise<void> {
  const crawlId = context.record.id;
  const filter = context.seenFilter;
  const growth = growthOf(batch, decision, inserted);
  await addGrowthStats(client, crawlId, growth.hosts, growth.paths);
  let counted = rejectionsCounted;
  for (const source of batch.sources) {
    const shard = counterShardOf(source.input.sourceFingerprint);
    await recordRejections(client, crawlId, shard, source.rejections, { countedBefore: counted });
    counted += source.rejections.length;
    await addSeenStats(client, crawlId, shard, seenFiguresOf(source), filter ? { fillRatio: filter.fillRatio, bytes: filter.sizing.bytes } : undefined);
  }
}

/** What a batch with no URL in scope and none refused reads: nothing. */
function noFacts(): RegistrationFacts {
  return { depths: new Map(), inlinks: new Map(), hostImportance: new Map(), hostUrls: new Map(), pathVariants: new Map(), depthContent: new Map(), present: new Set(), rejectionsCounted: 0 };
}
