/**
 * From discovered link to frontier entry (docs/design.md, "A URL's life": discover, canonicalize, dedup): canonicalize, scope, depth, the
 * seen test in tiers (Bloom filter, then the exact store), trap assessment, priority, then one
 * atomic insert per fingerprint. Used by the parser for links and by the fetcher for redirect
 * targets, so both follow the same rules. Every refusal is counted by reason, and a bounded
 * sample of the refused URLs is kept, so an operator can see what the crawl left out and why.
 *
 * A batch of sources (the pages of one parse batch) registers in a fixed number of statements,
 * whatever its size: one read of everything the decisions need, then the writes. The decisions
 * are taken source by source, in order, as if each had registered alone after the ones before it:
 * a URL an earlier source of the batch registered is known to the later ones (and a shorter path
 * from a later one lowers its depth), and growth counts run on across the batch.
 */
import { sitemapPriorityCapOf } from '../../config/crawl-config.js';
import {
  discoveryPriority,
  hostImportanceFromInlinks,
  inlinkWeight,
  listedUrlPriority,
  planSeenTest,
  settleSeenTest,
  tierOf,
  type ListedUrlSignals,
  type SeenTestPlan,
} from '../../domain/frontier/index.js';
import {
  DEFAULT_SESSION_PARAM_NAMES,
  assessTrap,
  isPathVariant,
  pathWithoutParams,
  tryCanonicalizeUrl,
  urlFingerprint,
  withoutSessionParams,
  type CanonicalUrl,
  type TrapAssessment,
} from '../../domain/url/index.js';
import { addCrawlCounters, counterShardOf } from '../../storage/postgres/crawl-counters.js';
import { recordLinks, type LinkEdge } from '../../storage/postgres/document-repository.js';
import { lowerFrontierDepthsTo, type DepthLowering } from '../../storage/postgres/frontier-depths.js';
import {
  addInlinks,
  insertFrontierEntries,
  recordUrlIdentities,
  type DiscoverySource,
  type InlinkBump,
  type NewFrontierEntry,
  type UrlIdentity,
} from '../../storage/postgres/frontier-registration.js';
import type { PoolClient } from '../../storage/postgres/pool.js';
import { DEPTH_REFUSAL, DISCOVERY_BUDGET_REFUSAL, recordRejections, type Rejection } from '../../storage/postgres/rejection-repository.js';
import {
  addGrowthStats,
  addSeenStats,
  depthContentKey,
  frontierDepths,
  pathStatKey,
  readRegistrationFacts,
  recordContentGrowth,
  type HostGrowth,
  type RegistrationFacts,
} from '../../storage/postgres/url-scope-repository.js';
import type { CrawlContext } from './crawl-context.js';

/** A discovered URL's priority and tier (discoveryPriority: depth first, then in-links and host importance). */
export function priorityOfDiscovery(signals: { depth: number; trapPenalty: number; inlinks?: number; hostImportance?: number }): { priority: number; tier: number } {
  const priority = discoveryPriority(signals);
  return { priority, tier: tierOf(priority) };
}

/**
 * Pages a host must have parsed at a depth before its share of new content counts: below it,
 * one duplicate page would look like a stall.
 */
export const MIN_PAGES_FOR_CONTENT_RATIO = 10;

export interface DiscoveredUrl {
  /** Absolute URL (already resolved against its base). */
  absoluteUrl: string;
  anchorText?: string;
  rel?: string;
  /** Frontier purpose of this URL when it is new, over the input's: 'feed' for a page's RSS or Atom feed. */
  purpose?: string;
  /** What a sitemap or feed says of the URL: may raise its priority up to the crawl's sitemapPriorityCap. */
  listed?: ListedUrlSignals;
  /** The kind of its edge in the link graph, over the input's: 'canonical' for a page's rel=canonical hint. */
  edge?: LinkEdge['kind'];
}

/** Refuses a canonical URL for a reason the registration cannot see (robots for a redirect target). */
export type RegistrationGate = (url: CanonicalUrl) => { code: string; reason: string } | undefined;

export interface RegistrationInput {
  sourceFingerprint: string;
  /** Depth of the URLs being registered (source depth + 1 for links, the same for redirects). */
  depth: number;
  urls: DiscoveredUrl[];
  kind: 'link' | 'redirect';
  /** For redirect targets: hops so far and the chain of fingerprints already visited. */
  redirect?: { hops: number; chain: string[] };
  nowMs: number;
  /**
   * For links: the source page's normalized content hash (null when it has no text). Feeds the
   * unique-content-by-depth signal (docs/design.md, "Crawler traps") once per page.
   */
  sourceContentHash?: string | null;
  /** Checked for new in-scope URLs, before trap assessment. */
  gate?: RegistrationGate;
  /** Frontier purpose of the new entries (a sitemap's redirect target is read as a sitemap). Default 'discovery'. */
  purpose?: string;
  /** How the crawl found these URLs (frontier.source). Default 'link', or 'redirect' for redirects. */
  source?: DiscoverySource;
  /** Record the source's edges in the link graph. Default true; a sitemap's listing is no endorsement and makes none. */
  recordEdges?: boolean;
  /**
   * The source page's host: its links count as in-links of their targets (inlinkWeight), which
   * raise their priority and their hosts' importance. Absent: they count nothing (redirects,
   * sitemaps, canonical hints).
   */
  sourceHost?: string;
}

/** What became of one discovered URL that canonicalized. */
export type UrlFate =
  | { kind: 'registered' }
  /** Already in this crawl's frontier (or registered by another worker at the same moment). */
  | { kind: 'known' }
  /** The discovery budget was spent. */
  | { kind: 'over-budget' }
  | { kind: 'rejected'; code: string; reason: string };

export interface RegistrationResult {
  registered: number;
  /** Edges recorded (link graph). */
  edges: number;
  rejected: { url: string; reason: string }[];
  /** One per distinct canonical URL, in discovery order. */
  outcomes: { url: string; fingerprint: string; fate: UrlFate }[];
}

interface Candidate {
  url: CanonicalUrl;
  fingerprint: string;
  source: DiscoveredUrl;
}

/** One source's registration while its batch decides: what it found, and what became of it. */
interface SourceRegistration {
  input: RegistrationInput;
  /** One per fingerprint, in discovery order. */
  candidates: Candidate[];
  edges: LinkEdge[];
  inScope: Candidate[];
  plan: SeenTestPlan;
  fates: Map<string, UrlFate>;
  rejections: Rejection[];
  /** Fresh URLs of this source, in the batch's entries. */
  entries: NewFrontierEntry[];
  drops: { candidate: Candidate; assessment: TrapAssessment }[];
  /** Refused beyond maxDepth: identities kept, so a shorter path found later may admit them (depth-relaxation.ts). */
  tooDeep: UrlIdentity[];
  /** URLs the crawl held deeper than this source registers them. */
  deeper: string[];
  falsePositives: number;
}

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
  const kinds = new Set(inputs.map((input) => input.kind));
  if (kinds.size > 1) throw new Error(`registerDiscoveredUrlsOfSources: one batch registers links or redirects, not both (got ${[...kinds].join(', ')})`);
  const config = context.record.config;
  const crawlId = context.record.id;
  const respectDiscoveryBudget = inputs[0]!.kind === 'link';
  const filter = context.seenFilter;
  const sessionNames = context.traps.sessionParamNames ?? DEFAULT_SESSION_PARAM_NAMES;

  // 1-3. Per source: canonical forms, the link graph's edges (in scope or not), scope, the seen
  // test's plan. Cheap, and no lookup for what is out of the crawl anyway.
  const sources = inputs.map((input): SourceRegistration => {
    const source: SourceRegistration = {
      input,
      candidates: [],
      edges: [],
      inScope: [],
      plan: planSeenTest(undefined, []),
      fates: new Map(),
      rejections: [],
      entries: [],
      drops: [],
      tooDeep: [],
      deeper: [],
      falsePositives: 0,
    };
    const inSource = new Set<string>();
    for (const discovered of input.urls) {
      const canonical = tryCanonicalizeUrl(discovered.absoluteUrl, context.canonicalizeOptions);
      if (!canonical.ok) {
        const { redactedInput, code, message } = canonical.error;
        source.rejections.push({ url: redactedInput, fingerprint: urlFingerprint(redactedInput), code: `invalid-url:${code}`, reason: message });
        continue;
      }
      const fingerprint = urlFingerprint(canonical.value.url);
      if (inSource.has(fingerprint)) continue;
      inSource.add(fingerprint);
      source.candidates.push({ url: canonical.value, fingerprint, source: discovered });
    }
    source.edges =
      input.recordEdges === false
        ? []
        : source.candidates.map((candidate) => ({
            source: input.sourceFingerprint,
            target: candidate.fingerprint,
            anchorText: candidate.source.anchorText,
            rel: candidate.source.rel,
            kind: candidate.source.edge ?? (candidate.source.purpose === 'feed' ? 'feed' : input.kind),
          }));
    for (const candidate of source.candidates) {
      const scope = context.scope.check(candidate.url);
      if (scope.inScope) source.inScope.push(candidate);
      else reject(source, candidate, `out-of-scope:${scope.code}`, scope.reason);
    }
    // The seen test in tiers: Bloom negatives go on; positives are confirmed in the exact store.
    source.plan = planSeenTest(filter, source.inScope.map((candidate) => candidate.fingerprint));
    return source;
  });

  // 4-5. One read of all the sources' facts: more than any one decision needs (growth for every
  // in-scope host, not only those of fresh URLs), fewer round trips than asking one at a time.
  const inScope = sources.flatMap((source) => source.inScope);
  const twinsBySource = sources.map((source) => sessionTwinsOf(source.inScope, sessionNames, context));
  const nothingToRead = inScope.length === 0 && sources.every((source) => source.rejections.length === 0);
  const facts = nothingToRead ? noFacts() : await readRegistrationFacts(client, crawlId, {
    confirm: [...new Set(sources.flatMap((source) => source.plan.toConfirm))],
    hosts: [...new Set(inScope.map((candidate) => candidate.url.host))],
    paths: [...new Map(inScope.filter((c) => isPathVariant(c.url)).map((c) => [pathStatKey(c.url.host, pathWithoutParams(c.url.path)), { host: c.url.host, path: pathWithoutParams(c.url.path) }])).values()],
    depthContent: [...new Map(sources.flatMap((source) => source.inScope.map((c) => [depthContentKey(source.input.depth - 1, c.url.host), { depth: source.input.depth - 1, host: c.url.host }]))).values()],
    present: [...new Set(twinsBySource.flatMap((twins) => [...twins.values()].map((twin) => twin.fingerprint)))],
    withDiscoveryRoom: respectDiscoveryBudget,
  });
  const growth = { hostUrls: facts.hostUrls, pathVariants: facts.pathVariants };
  // Fresh URLs of the batch's earlier sources: known to the later ones, as if those had committed.
  const freshInBatch = new Map<string, NewFrontierEntry>();
  /** In-links the batch adds to URLs the crawl held before it, by fingerprint. */
  const inlinksToKnown = new Map<string, { host: string; weight: number }>();
  /** Weighted in-links from other hosts, by target host (their hosts' importance). */
  const crossHostInlinks = new Map<string, number>();
  const importanceOf = (host: string): number | undefined => {
    const known = facts.hostImportance.get(host);
    if (known === undefined) return undefined;
    return known.set ?? hostImportanceFromInlinks(known.inlinks);
  };

  sources.forEach((source, index) => {
    const { input } = source;
    const verdict = settleSeenTest(source.plan, new Set([...source.plan.toConfirm].filter((fingerprint) => facts.depths.has(fingerprint))));
    source.falsePositives = verdict.falsePositives.length;
    for (const fingerprint of verdict.seen) {
      source.fates.set(fingerprint, { kind: 'known' });
      if (facts.depths.get(fingerprint)! > input.depth) source.deeper.push(fingerprint);
    }
    const unseen = new Set(verdict.unseen);
    const inBatch = new Set(source.candidates.map((candidate) => candidate.fingerprint));
    const twins = twinsBySource[index]!;
    // A page's links are votes for their targets (docs/design.md, "Front queues"), each page once per target.
    const weightOf = (candidate: Candidate): number =>
      input.sourceHost === undefined || input.kind !== 'link' || (input.source ?? 'link') !== 'link' ? 0 : inlinkWeight(input.sourceHost, candidate.url.host);
    for (const candidate of source.inScope) {
      const weight = weightOf(candidate);
      if (weight > 0 && input.sourceHost !== candidate.url.host) crossHostInlinks.set(candidate.url.host, (crossHostInlinks.get(candidate.url.host) ?? 0) + weight);
      if (weight > 0 && !unseen.has(candidate.fingerprint)) {
        const bump = inlinksToKnown.get(candidate.fingerprint);
        inlinksToKnown.set(candidate.fingerprint, { host: candidate.url.host, weight: (bump?.weight ?? 0) + weight });
      }
    }
    for (const candidate of source.inScope) {
      if (!unseen.has(candidate.fingerprint)) continue;
      const earlier = freshInBatch.get(candidate.fingerprint);
      if (earlier !== undefined) {
        // Registered by an earlier source of this batch: known here, and a shorter path lowers it.
        source.fates.set(candidate.fingerprint, { kind: 'known' });
        if (earlier.depth > input.depth) lowerEntry(earlier, input.depth);
        const weight = weightOf(candidate);
        if (weight > 0) addEntryInlinks(earlier, weight, importanceOf(candidate.url.host));
        continue;
      }
      if (input.depth > config.maxDepth) {
        reject(source, candidate, DEPTH_REFUSAL, `depth ${input.depth} is beyond the crawl's maxDepth ${config.maxDepth}`);
        source.tooDeep.push(identityOf(candidate));
        continue;
      }
      const refused = input.gate?.(candidate.url);
      if (refused) {
        reject(source, candidate, refused.code, refused.reason);
        continue;
      }
      // Traps, by growth pattern around each new URL.
      const { url } = candidate;
      const variant = isPathVariant(url);
      const pathKey = pathStatKey(url.host, pathWithoutParams(url.path));
      let assessment = assessTrap(
        url,
        {
          depth: input.depth,
          nowMs: input.nowMs,
          hostUrlCount: growth.hostUrls.get(url.host) ?? 0,
          pathVariantCount: variant ? (growth.pathVariants.get(pathKey) ?? 0) : 0,
          uniqueContentRatioAtDepth: newContentRatio(facts.depthContent.get(depthContentKey(input.depth - 1, url.host))),
        },
        context.traps,
      );
      const twin = twins.get(candidate.fingerprint);
      const twinKnown = twin !== undefined && (facts.present.has(twin.fingerprint) || inBatch.has(twin.fingerprint) || freshInBatch.has(twin.fingerprint));
      if (twinKnown && assessment.action !== 'drop' && !inSample(candidate.fingerprint, context.traps.overflowSampleRate ?? 0.01)) {
        // The same page is already in the crawl without the session id: fetching it again under a
        // fresh id only feeds the trap. A deterministic sample is kept (demoted) to show the pattern.
        assessment = {
          action: 'drop',
          priorityPenalty: 1,
          reasons: [
            ...assessment.reasons,
            { code: 'session-id', action: 'drop', detail: `the same URL without its session id (${twin.url}) is already in the crawl` },
          ],
        };
      }
      if (assessment.action === 'drop') {
        source.drops.push({ candidate, assessment });
        continue;
      }
      const inlinks = weightOf(candidate);
      const hostImportance = importanceOf(candidate.url.host);
      const linked = priorityOfDiscovery({ depth: input.depth, trapPenalty: assessment.priorityPenalty, inlinks, ...(hostImportance === undefined ? {} : { hostImportance }) });
      // What a sitemap says raises a URL, up to the crawl's cap; never one a trap check demoted.
      const listed = candidate.source.listed;
      const priority =
        listed === undefined || assessment.action === 'demote' ? linked.priority : listedUrlPriority(linked.priority, listed, input.nowMs, { capPriority: sitemapPriorityCapOf(config) });
      const tier = priority === linked.priority ? linked.tier : tierOf(priority);
      const purpose = candidate.source.purpose ?? input.purpose;
      const entry: NewFrontierEntry = {
        ...identityOf(candidate),
        depth: input.depth,
        priority,
        tier,
        discoveredFrom: input.sourceFingerprint,
        anchorText: candidate.source.anchorText?.slice(0, 500),
        redirectHops: input.redirect?.hops ?? 0,
        redirectChain: input.redirect?.chain ?? [],
        demotion: assessment.action === 'demote' ? assessment.reasons : undefined,
        ...(purpose === undefined ? {} : { purpose }),
        source: input.source ?? (input.kind === 'redirect' ? 'redirect' : 'link'),
        ...(inlinks > 0 ? { inlinks } : {}),
      };
      source.entries.push(entry);
      freshInBatch.set(entry.fingerprint, entry);
      // Growth within this page counts too: a page of 500 calendar links trips the limits.
      growth.hostUrls.set(url.host, (growth.hostUrls.get(url.host) ?? 0) + 1);
      if (variant) growth.pathVariants.set(pathKey, (growth.pathVariants.get(pathKey) ?? 0) + 1);
    }
  });

  // 6. Writes, each multi-row one in key order so concurrent registrations never deadlock: the
  // sources' content growth, the edges, then the atomic check-and-insert, where the (crawl,
  // fingerprint) primary key decides whatever the filter said. Redirect targets were asked for by
  // a URL already admitted; they do not spend the discovery budget. Per-crawl figures go to the
  // counter shard of each source page, so pages of one crawl do not queue on one row, and are
  // written at COMMIT in one global order (holdRows).
  for (const { input } of sources) {
    if (input.sourceContentHash !== undefined) await recordContentGrowth(client, { crawlId, fingerprint: input.sourceFingerprint, normalizedHash: input.sourceContentHash });
  }
  await recordLinks(client, crawlId, sources.flatMap((source) => source.edges));
  const entries = sources.flatMap((source) => source.entries);
  await recordUrlIdentities(client, [...entries, ...sources.flatMap((source) => source.tooDeep)]);
  const room = respectDiscoveryBudget ? (facts.discoveryRoom ?? 0) : entries.length;
  const inserted = new Set(await insertFrontierEntries(client, crawlId, entries, { room, includeFetched: false }));
  // Entries neither inserted nor present were left out by the budget only when it bound; else the
  // crawl's kind kept them out (a recrawl or sweep registers only URLs never fetched): known URLs.
  const budgetBound = room < entries.length;
  for (const source of sources) {
    const discovered = source.entries.filter((entry) => inserted.has(entry.fingerprint)).length;
    await addCrawlCounters(client, crawlId, counterShardOf(source.input.sourceFingerprint), { discovered });
  }
  // Those not inserted: there already (another worker registered them meanwhile), or over budget.
  const present = await frontierDepths(client, crawlId, entries.filter((entry) => !inserted.has(entry.fingerprint)).map((entry) => entry.fingerprint));
  // Parses run out of breadth-first order (hosts side by side, bursts), so a page may have been
  // found first by a longer path: its depth is the shortest path's (Heritrix's hop count would keep the first).
  const lowerings = sources.flatMap((source) => {
    const deeper = [...source.deeper, ...source.entries.filter((entry) => (present.get(entry.fingerprint) ?? -1) > source.input.depth).map((entry) => entry.fingerprint)];
    const atDepth = priorityOfDiscovery({ depth: source.input.depth, trapPenalty: 0 });
    return deeper.map((fingerprint): DepthLowering => ({ fingerprint, depth: source.input.depth, ...atDepth }));
  });
  const lowered = await lowerFrontierDepthsTo(client, crawlId, lowerings, { skipLocked: rowsHeldElsewhere === 'later' });
  // The URLs the crawl held already: their new in-links, and the priority those earn them.
  const loweredTo = new Map(lowerings.map((lowering) => [lowering.fingerprint, lowering.depth]));
  const bumps: InlinkBump[] = [];
  for (const [fingerprint, { host, weight }] of inlinksToKnown) {
    const depth = Math.min(facts.depths.get(fingerprint) ?? Infinity, loweredTo.get(fingerprint) ?? Infinity);
    if (!Number.isFinite(depth)) continue;
    const hostImportance = importanceOf(host);
    const bumped = priorityOfDiscovery({ depth, trapPenalty: 0, inlinks: (facts.inlinks.get(fingerprint) ?? 0) + weight, ...(hostImportance === undefined ? {} : { hostImportance }) });
    bumps.push({ fingerprint, inlinks: weight, ...bumped });
  }
  await addInlinks(client, crawlId, bumps);
  const loweredNow = new Set(lowered.map((row) => row.fingerprint));
  // Not lowered: held elsewhere, or no longer deeper (the statement after COMMIT changes nothing then).
  const lowerAfterCommit = rowsHeldElsewhere === 'later' ? lowerings.filter((lowering) => !loweredNow.has(lowering.fingerprint)) : [];
  for (const source of sources) {
    for (const entry of source.entries) {
      const fate: UrlFate = inserted.has(entry.fingerprint) ? { kind: 'registered' } : present.has(entry.fingerprint) || !budgetBound ? { kind: 'known' } : { kind: 'over-budget' };
      source.fates.set(entry.fingerprint, fate);
      // Counted with the refusals, so the crawl's end can say the budget left URLs out.
      if (fate.kind === 'over-budget') {
        source.rejections.push({
          url: entry.url,
          fingerprint: entry.fingerprint,
          code: DISCOVERY_BUDGET_REFUSAL,
          reason: `the crawl's discovery budget (maxDiscoveredUrls ${config.maxDiscoveredUrls}) is spent`,
        });
      }
    }
  }
  if (filter) {
    // Only what the exact store holds goes into the filter, so its positives stay meaningful.
    for (const fingerprint of [...inserted, ...present.keys(), ...facts.depths.keys()]) filter.add(fingerprint);
  }

  // 7. Figures for operators: growth, trap drops, refusals, the seen test.
  const hostGrowth = new Map<string, HostGrowth>();
  const pathGrowth = new Map<string, { host: string; path: string; variants: number }>();
  const growthOf = (host: string): HostGrowth => {
    let stat = hostGrowth.get(host);
    if (!stat) hostGrowth.set(host, (stat = { urls: 0, demoted: 0, dropped: 0 }));
    return stat;
  };
  for (const entry of entries) {
    if (!inserted.has(entry.fingerprint)) continue;
    const stat = growthOf(entry.host);
    stat.urls += 1;
    if (entry.demotion !== undefined) stat.demoted += 1;
  }
  for (const [host, weight] of crossHostInlinks) growthOf(host).inlinks = (growthOf(host).inlinks ?? 0) + weight;
  for (const source of sources) {
    const own = new Set(source.entries.map((entry) => entry.fingerprint));
    for (const candidate of source.inScope) {
      if (!inserted.has(candidate.fingerprint) || !own.has(candidate.fingerprint) || !isPathVariant(candidate.url)) continue;
      const path = pathWithoutParams(candidate.url.path);
      const key = pathStatKey(candidate.url.host, path);
      const stat = pathGrowth.get(key) ?? { host: candidate.url.host, path, variants: 0 };
      stat.variants += 1;
      pathGrowth.set(key, stat);
    }
    for (const { candidate, assessment } of source.drops) {
      growthOf(candidate.url.host).dropped += 1;
      const codes = [...new Set(assessment.reasons.filter((reason) => reason.action === 'drop').map((reason) => reason.code))];
      reject(source, candidate, `trap:${codes.join('+')}`, assessment.reasons.map((reason) => `${reason.code} (${reason.detail})`).join('; '), assessment.reasons);
    }
  }
  await addGrowthStats(client, crawlId, hostGrowth, [...pathGrowth.values()]);
  let counted = facts.rejectionsCounted;
  for (const source of sources) {
    const shard = counterShardOf(source.input.sourceFingerprint);
    await recordRejections(client, crawlId, shard, source.rejections, { countedBefore: counted });
    counted += source.rejections.length;
    const { plan } = source;
    await addSeenStats(
      client,
      crawlId,
      shard,
      {
        checked: source.inScope.length,
        unfiltered: plan.filtered ? 0 : source.inScope.length,
        negatives: plan.filtered ? plan.negatives.size : 0,
        positives: plan.toConfirm.length,
        falsePositives: source.falsePositives,
      },
      filter ? { fillRatio: filter.fillRatio, bytes: filter.sizing.bytes } : undefined,
    );
  }

  const results = sources.map((source) => ({
    registered: source.entries.filter((entry) => inserted.has(entry.fingerprint)).length,
    edges: source.edges.length,
    rejected: source.rejections.map((rejection) => ({ url: rejection.url, reason: `${rejection.code}: ${rejection.reason}` })),
    outcomes: source.candidates.map((candidate) => ({ url: candidate.url.url, fingerprint: candidate.fingerprint, fate: source.fates.get(candidate.fingerprint) ?? { kind: 'known' } })),
  }));
  return { results, lowerAfterCommit };
}

/** What a batch with no URL in scope and none refused reads: nothing. */
function noFacts(): RegistrationFacts {
  return { depths: new Map(), inlinks: new Map(), hostImportance: new Map(), hostUrls: new Map(), pathVariants: new Map(), depthContent: new Map(), present: new Set(), rejectionsCounted: 0 };
}

/** A fresh entry of the batch linked again by a later source: its in-links, and the priority they earn (never a demoted one's). */
function addEntryInlinks(entry: NewFrontierEntry, weight: number, hostImportance: number | undefined): void {
  entry.inlinks = (entry.inlinks ?? 0) + weight;
  if (entry.demotion !== undefined) return;
  const bumped = priorityOfDiscovery({ depth: entry.depth, trapPenalty: 0, inlinks: entry.inlinks, ...(hostImportance === undefined ? {} : { hostImportance }) });
  if (bumped.priority > entry.priority) {
    entry.priority = bumped.priority;
    entry.tier = bumped.tier;
  }
}

function reject(source: SourceRegistration, candidate: Pick<Candidate, 'url' | 'fingerprint'>, code: string, reason: string, detail?: unknown): void {
  source.fates.set(candidate.fingerprint, { kind: 'rejected', code, reason });
  source.rejections.push({ url: candidate.url.url, fingerprint: candidate.fingerprint, code, reason, detail });
}

/** A fresh entry found again, closer to the seeds, by a later source of its batch: as lowerFrontierDepths would lower it. */
function lowerEntry(entry: NewFrontierEntry, depth: number): void {
  const atDepth = priorityOfDiscovery({ depth, trapPenalty: 0 });
  entry.depth = depth;
  if (entry.demotion === undefined && atDepth.priority > entry.priority) {
    entry.priority = atDepth.priority;
    entry.tier = atDepth.tier;
  }
}

function identityOf({ url, fingerprint }: Pick<Candidate, 'url' | 'fingerprint'>): UrlIdentity {
  return { fingerprint, url: url.url, canonicalizationVersion: url.version, host: url.host, origin: url.origin };
}

/** For URLs carrying a session id: the session-free form, by the session URL's fingerprint. */
function sessionTwinsOf(candidates: readonly Candidate[], sessionNames: readonly string[], context: CrawlContext): Map<string, { url: string; fingerprint: string }> {
  const twins = new Map<string, { url: string; fingerprint: string }>();
  for (const candidate of candidates) {
    const stripped = withoutSessionParams(candidate.url, sessionNames);
    if (stripped === undefined) continue;
    const canonical = tryCanonicalizeUrl(stripped, context.canonicalizeOptions);
    if (canonical.ok) twins.set(candidate.fingerprint, { url: canonical.value.url, fingerprint: urlFingerprint(canonical.value.url) });
  }
  return twins;
}

function newContentRatio(stats: { pages: number; newContent: number } | undefined): number | undefined {
  if (!stats || stats.pages < MIN_PAGES_FOR_CONTENT_RATIO) return undefined;
  return Math.min(1, Math.max(0, stats.newContent / stats.pages));
}

/** Deterministic: the same URL is always in or out of the sample, in every process. */
function inSample(fingerprint: string, rate: number): boolean {
  return parseInt(fingerprint.slice(0, 8), 16) / 0x1_0000_0000 < rate;
}
