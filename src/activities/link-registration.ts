/**
 * From discovered link to frontier entry (000 §3, steps 1-3): canonicalize, scope, depth, the
 * seen test in tiers (Bloom filter, then the exact store), trap assessment, priority, then one
 * atomic insert per fingerprint. Used by the parser for links and by the fetcher for redirect
 * targets, so both follow the same rules. Every refusal is counted by reason, and a bounded
 * sample of the refused URLs is kept, so an operator can see what the crawl left out and why.
 */
import { planSeenTest, settleSeenTest, tierOf, urlPriority } from '../domain/frontier/index.js';
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
} from '../domain/url/index.js';
import { lowerFrontierDepths, registerFrontierEntries, type NewFrontierEntry, type UrlIdentity } from '../storage/postgres/frontier-repository.js';
import { counterShardOf } from '../storage/postgres/crawl-counters.js';
import { recordLinks, type LinkEdge } from '../storage/postgres/document-repository.js';
import type { PoolClient } from '../storage/postgres/pool.js';
import {
  addGrowthStats,
  addSeenStats,
  fingerprintsInFrontier,
  frontierDepths,
  pathStatKey,
  readDepthContent,
  readGrowthStats,
  recordContentGrowth,
  recordRejections,
  type HostGrowth,
  type Rejection,
} from '../storage/postgres/url-scope-repository.js';
import type { CrawlContext } from './crawl-context.js';

export function priorityOfDiscovery(signals: { depth: number; trapPenalty: number; inlinks?: number }): { priority: number; tier: number } {
  const priority = urlPriority({ depth: signals.depth, inlinks: signals.inlinks ?? 0, trapPenalty: signals.trapPenalty });
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
   * unique-content-by-depth signal (000 §6.2) once per page.
   */
  sourceContentHash?: string | null;
  /** Checked for new in-scope URLs, before trap assessment. */
  gate?: RegistrationGate;
  /** Frontier purpose of the new entries (a sitemap's redirect target is read as a sitemap). Default 'discovery'. */
  purpose?: string;
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

/** Runs inside the caller's transaction. */
export async function registerDiscoveredUrls(client: PoolClient, context: CrawlContext, input: RegistrationInput): Promise<RegistrationResult> {
  const config = context.record.config;
  const crawlId = context.record.id;
  const rejections: Rejection[] = [];
  const fates = new Map<string, UrlFate>();
  const reject = (candidate: Pick<Candidate, 'url' | 'fingerprint'>, code: string, reason: string, detail?: unknown): void => {
    fates.set(candidate.fingerprint, { kind: 'rejected', code, reason });
    rejections.push({ url: candidate.url.url, fingerprint: candidate.fingerprint, code, reason, detail });
  };

  // 1. Canonical form and fingerprint; one candidate per fingerprint.
  const candidates: Candidate[] = [];
  const inBatch = new Set<string>();
  for (const discovered of input.urls) {
    const canonical = tryCanonicalizeUrl(discovered.absoluteUrl, context.canonicalizeOptions);
    if (!canonical.ok) {
      const { redactedInput, code, message } = canonical.error;
      rejections.push({ url: redactedInput, fingerprint: urlFingerprint(redactedInput), code: `invalid-url:${code}`, reason: message });
      continue;
    }
    const fingerprint = urlFingerprint(canonical.value.url);
    if (inBatch.has(fingerprint)) continue;
    inBatch.add(fingerprint);
    candidates.push({ url: canonical.value, fingerprint, source: discovered });
  }

  // 2. The link graph keeps every edge, in scope or not (written below, with the other writes).
  const edges: LinkEdge[] = candidates.map((candidate) => ({
    source: input.sourceFingerprint,
    target: candidate.fingerprint,
    anchorText: candidate.source.anchorText,
    rel: candidate.source.rel,
    kind: input.kind,
  }));

  // 3. Scope: cheap, and no lookup for what is out of the crawl anyway.
  const inScope: Candidate[] = [];
  for (const candidate of candidates) {
    const scope = context.scope.check(candidate.url);
    if (scope.inScope) inScope.push(candidate);
    else reject(candidate, `out-of-scope:${scope.code}`, scope.reason);
  }

  // 4. The seen test in tiers: Bloom negatives go on; positives are confirmed in the exact store.
  // Before depth and traps, so a URL the crawl already holds is never reported as refused.
  const filter = context.seenFilter;
  const plan = planSeenTest(filter, inScope.map((candidate) => candidate.fingerprint));
  const confirmedDepths = await frontierDepths(client, crawlId, plan.toConfirm);
  const verdict = settleSeenTest(plan, new Set(confirmedDepths.keys()));
  for (const fingerprint of verdict.seen) fates.set(fingerprint, { kind: 'known' });
  const unseen = new Set(verdict.unseen);
  const fresh: Candidate[] = [];
  // Their identities are kept: a shorter path found later may admit them (depth-relaxation.ts).
  const tooDeep: UrlIdentity[] = [];
  for (const candidate of inScope) {
    if (!unseen.has(candidate.fingerprint)) continue;
    if (input.depth > config.maxDepth) {
      reject(candidate, 'depth', `depth ${input.depth} is beyond the crawl's maxDepth ${config.maxDepth}`);
      tooDeep.push(identityOf(candidate));
      continue;
    }
    const refused = input.gate?.(candidate.url);
    if (refused) {
      reject(candidate, refused.code, refused.reason);
      continue;
    }
    fresh.push(candidate);
  }

  // 5. Traps, by growth pattern around each new URL.
  const sessionNames = context.traps.sessionParamNames ?? DEFAULT_SESSION_PARAM_NAMES;
  const hosts = [...new Set(fresh.map((candidate) => candidate.url.host))];
  const pathKeys = [...new Map(fresh.filter((c) => isPathVariant(c.url)).map((c) => [pathStatKey(c.url.host, pathWithoutParams(c.url.path)), { host: c.url.host, path: pathWithoutParams(c.url.path) }])).values()];
  // One after another: a transaction's client runs one query at a time (pg deprecates queueing them).
  const growth = await readGrowthStats(client, crawlId, hosts, pathKeys);
  const depthContent = await readDepthContent(client, crawlId, input.depth - 1, hosts);
  const sessionTwins = await knownSessionTwins(client, crawlId, fresh, sessionNames, context, inBatch);
  const entries: NewFrontierEntry[] = [];
  const drops: { candidate: Candidate; assessment: TrapAssessment }[] = [];
  for (const candidate of fresh) {
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
        uniqueContentRatioAtDepth: newContentRatio(depthContent.get(url.host)),
      },
      context.traps,
    );
    const twin = sessionTwins.get(candidate.fingerprint);
    if (twin !== undefined && assessment.action !== 'drop' && !inSample(candidate.fingerprint, context.traps.overflowSampleRate ?? 0.01)) {
      // The same page is already in the crawl without the session id: fetching it again under a
      // fresh id only feeds the trap. A deterministic sample is kept (demoted) to show the pattern.
      assessment = {
        action: 'drop',
        priorityPenalty: 1,
        reasons: [
          ...assessment.reasons,
          { code: 'session-id', action: 'drop', detail: `the same URL without its session id (${twin}) is already in the crawl` },
        ],
      };
    }
    if (assessment.action === 'drop') {
      drops.push({ candidate, assessment });
      continue;
    }
    const { priority, tier } = priorityOfDiscovery({ depth: input.depth, trapPenalty: assessment.priorityPenalty });
    entries.push({
      ...identityOf(candidate),
      depth: input.depth,
      priority,
      tier,
      discoveredFrom: input.sourceFingerprint,
      anchorText: candidate.source.anchorText?.slice(0, 500),
      redirectHops: input.redirect?.hops ?? 0,
      redirectChain: input.redirect?.chain ?? [],
      demotion: assessment.action === 'demote' ? assessment.reasons : undefined,
      ...(input.purpose === undefined ? {} : { purpose: input.purpose }),
    });
    // Growth within this page counts too: a page of 500 calendar links trips the limits.
    growth.hostUrls.set(url.host, (growth.hostUrls.get(url.host) ?? 0) + 1);
    if (variant) growth.pathVariants.set(pathKey, (growth.pathVariants.get(pathKey) ?? 0) + 1);
  }

  // 6. Writes, each multi-row one in key order so concurrent registrations never deadlock: the
  // source page's content growth, the edges, then the atomic check-and-insert, where the
  // (crawl, fingerprint) primary key decides whatever the filter said. Redirect targets were
  // asked for by a URL already admitted; they do not spend the discovery budget. Per-crawl
  // figures go to the counter shard of the source page, so pages of one crawl do not queue on one
  // row, and are written at COMMIT in one global order (bumpSharedFigure).
  const shard = counterShardOf(input.sourceFingerprint);
  if (input.sourceContentHash !== undefined) {
    await recordContentGrowth(client, { crawlId, fingerprint: input.sourceFingerprint, normalizedHash: input.sourceContentHash });
  }
  await recordLinks(client, crawlId, edges);
  const inserted = new Set(
    await registerFrontierEntries(client, crawlId, entries, { respectDiscoveryBudget: input.kind === 'link', shardKey: input.sourceFingerprint, alsoIdentify: tooDeep }),
  );
  const unplaced = entries.filter((entry) => !inserted.has(entry.fingerprint)).map((entry) => entry.fingerprint);
  const presentDepths = await frontierDepths(client, crawlId, unplaced);
  const present = new Set(presentDepths.keys());
  // Parses run out of breadth-first order (hosts side by side, bursts), so a page may have been
  // found first by a longer path: its depth is the shortest path's (Heritrix's hop count would keep the first).
  const deeper = [...confirmedDepths, ...presentDepths].filter(([, depth]) => depth > input.depth).map(([fingerprint]) => fingerprint);
  await lowerFrontierDepths(client, crawlId, deeper, input.depth, priorityOfDiscovery({ depth: input.depth, trapPenalty: 0 }));
  for (const entry of entries) {
    fates.set(entry.fingerprint, inserted.has(entry.fingerprint) ? { kind: 'registered' } : present.has(entry.fingerprint) ? { kind: 'known' } : { kind: 'over-budget' });
  }
  if (filter) {
    // Only what the exact store holds goes into the filter, so its positives stay meaningful.
    for (const fingerprint of [...inserted, ...present, ...verdict.seen]) filter.add(fingerprint);
  }

  // 7. Figures for operators: growth, trap drops, refusals, the seen test.
  const hostGrowth = new Map<string, HostGrowth>();
  const pathGrowth = new Map<string, { host: string; path: string; variants: number }>();
  const growthOf = (host: string): HostGrowth => {
    let stat = hostGrowth.get(host);
    if (!stat) hostGrowth.set(host, (stat = { urls: 0, demoted: 0, dropped: 0 }));
    return stat;
  };
  const freshUrls = new Map(fresh.map((candidate) => [candidate.fingerprint, candidate.url]));
  for (const entry of entries) {
    if (!inserted.has(entry.fingerprint)) continue;
    const stat = growthOf(entry.host);
    stat.urls += 1;
    if (entry.demotion !== undefined) stat.demoted += 1;
    const url = freshUrls.get(entry.fingerprint)!;
    if (isPathVariant(url)) {
      const path = pathWithoutParams(url.path);
      const key = pathStatKey(url.host, path);
      const stat = pathGrowth.get(key) ?? { host: url.host, path, variants: 0 };
      stat.variants += 1;
      pathGrowth.set(key, stat);
    }
  }
  for (const { candidate, assessment } of drops) {
    growthOf(candidate.url.host).dropped += 1;
    const codes = [...new Set(assessment.reasons.filter((reason) => reason.action === 'drop').map((reason) => reason.code))];
    reject(candidate, `trap:${codes.join('+')}`, assessment.reasons.map((reason) => `${reason.code} (${reason.detail})`).join('; '), assessment.reasons);
  }
  await addGrowthStats(client, crawlId, hostGrowth, [...pathGrowth.values()]);
  await recordRejections(client, crawlId, shard, rejections);
  await addSeenStats(
    client,
    crawlId,
    shard,
    {
      checked: inScope.length,
      unfiltered: plan.filtered ? 0 : inScope.length,
      negatives: plan.filtered ? plan.negatives.size : 0,
      positives: plan.toConfirm.length,
      falsePositives: verdict.falsePositives.length,
    },
    filter ? { fillRatio: filter.fillRatio, bytes: filter.sizing.bytes } : undefined,
  );

  return {
    registered: inserted.size,
    edges: edges.length,
    rejected: rejections.map((rejection) => ({ url: rejection.url, reason: `${rejection.code}: ${rejection.reason}` })),
    outcomes: candidates.map((candidate) => ({ url: candidate.url.url, fingerprint: candidate.fingerprint, fate: fates.get(candidate.fingerprint) ?? { kind: 'known' } })),
  };
}

function identityOf({ url, fingerprint }: Pick<Candidate, 'url' | 'fingerprint'>): UrlIdentity {
  return { fingerprint, url: url.url, canonicalizationVersion: url.version, host: url.host, origin: url.origin };
}

/**
 * For new URLs carrying a session id: the session-free form, when the crawl already holds it
 * (in its frontier or earlier on this very page). Keyed by the session URL's fingerprint.
 */
async function knownSessionTwins(
  client: PoolClient,
  crawlId: string,
  candidates: readonly Candidate[],
  sessionNames: readonly string[],
  context: CrawlContext,
  inBatch: ReadonlySet<string>,
): Promise<Map<string, string>> {
  const twins = new Map<string, { url: string; fingerprint: string }>();
  for (const candidate of candidates) {
    const stripped = withoutSessionParams(candidate.url, sessionNames);
    if (stripped === undefined) continue;
    const canonical = tryCanonicalizeUrl(stripped, context.canonicalizeOptions);
    if (canonical.ok) twins.set(candidate.fingerprint, { url: canonical.value.url, fingerprint: urlFingerprint(canonical.value.url) });
  }
  if (twins.size === 0) return new Map();
  const known = await fingerprintsInFrontier(client, crawlId, [...new Set([...twins.values()].map((twin) => twin.fingerprint))]);
  const result = new Map<string, string>();
  for (const [fingerprint, twin] of twins) {
    if (known.has(twin.fingerprint) || inBatch.has(twin.fingerprint)) result.set(fingerprint, twin.url);
  }
  return result;
}

function newContentRatio(stats: { pages: number; newContent: number } | undefined): number | undefined {
  if (!stats || stats.pages < MIN_PAGES_FOR_CONTENT_RATIO) return undefined;
  return Math.min(1, Math.max(0, stats.newContent / stats.pages));
}

/** Deterministic: the same URL is always in or out of the sample, in every process. */
function inSample(fingerprint: string, rate: number): boolean {
  return parseInt(fingerprint.slice(0, 8), 16) / 0x1_0000_0000 < rate;
}
