/**
 * The registration decision before any write (docs/design.md, "A URL's life": discover,
 * canonicalize, dedup): per source, canonical forms, edges, scope and the seen test's plan
 * (prepareRegistrations); then, from the facts read, which URLs become entries, which known ones a
 * shorter path lowers, which are refused and why, and the in-links the batch adds
 * (decideRegistrations). Sources decide in order, as if each had registered alone after the ones
 * before it: a URL an earlier source registered is known to the later ones (and a shorter path
 * from a later one lowers its depth), and growth counts run on across the batch.
 */
import {
  discoveryPriority,
  hostImportanceFromInlinks,
  inlinkWeight,
  listedUrlPriority,
  planSeenTest,
  settleSeenTest,
  tierOf,
  type SeenFilterProbe,
} from '../frontier/index.js';
import {
  DEFAULT_SESSION_PARAM_NAMES,
  assessTrap,
  isPathVariant,
  pathWithoutParams,
  tryCanonicalizeUrl,
  urlFingerprint,
  withoutSessionParams,
  type CanonicalizeOptions,
  type ScopeChecker,
  type TrapAssessment,
  type TrapOptions,
} from '../url/index.js';
import type {
  Candidate,
  LinkEdge,
  NewEntry,
  RegistrationFacts,
  RegistrationFactsQuery,
  RegistrationInput,
  SourceRegistration,
  UrlIdentity,
} from './registration-types.js';

/** The refusal code of a URL beyond the crawl's maxDepth. */
export const DEPTH_REFUSAL = 'depth';
/** The refusal code of a new URL the spent discovery budget left out. */
export const DISCOVERY_BUDGET_REFUSAL = 'discovery-budget';

/**
 * Pages a host must have parsed at a depth before its share of new content counts: below it,
 * one duplicate page would look like a stall.
 */
export const MIN_PAGES_FOR_CONTENT_RATIO = 10;

/** The key of a path's variant count in RegistrationFacts.pathVariants. */
export const pathStatKey = (host: string, path: string): string => `${host} ${path}`;
/** The key of a host's new content at a depth in RegistrationFacts.depthContent. */
export const depthContentKey = (depth: number, host: string): string => `${depth} ${host}`;

/** A discovered URL's priority and tier (discoveryPriority: depth first, then in-links and host importance). */
export function priorityOfDiscovery(signals: { depth: number; trapPenalty: number; inlinks?: number; hostImportance?: number }): { priority: number; tier: number } {
  const priority = discoveryPriority(signals);
  return { priority, tier: tierOf(priority) };
}

/** The crawl's rules a registration applies. */
export interface RegistrationRules {
  canonicalizeOptions: CanonicalizeOptions;
  scope: ScopeChecker;
  /** Trap thresholds ({}: the defaults). */
  traps: Omit<TrapOptions, 'maxDepth'>;
  /** This process's seen filter; undefined: every in-scope URL goes to the atomic insert unlooked-up. */
  seenFilter: SeenFilterProbe | undefined;
  maxDepth: number;
  maxDiscoveredUrls: number;
  /** The highest priority what a sitemap says may raise a URL to. */
  sitemapPriorityCap: number;
}

/** A batch of sources being registered: each source's state, and what the decisions need read. */
export interface RegistrationBatch {
  sources: SourceRegistration[];
  /** Per source, the session-free forms of its in-scope URLs that carry a session id, by fingerprint. */
  twins: Map<string, { url: string; fingerprint: string }>[];
  /** What to read before deciding; undefined when no URL is in scope and none was refused. */
  query: RegistrationFactsQuery | undefined;
  /** Only links spend the discovery budget. */
  respectDiscoveryBudget: boolean;
}

/** What the batch's decisions add beyond each source's own state. */
export interface BatchDecision {
  /** Fresh URLs of every source, in order. */
  entries: NewEntry[];
  /** In-links the batch adds to URLs the crawl held before it, by fingerprint. */
  inlinksToKnown: Map<string, { host: string; weight: number }>;
  /** Weighted in-links from other hosts, by target host (their hosts' importance). */
  crossHostInlinks: Map<string, number>;
}

/**
 * Per source: canonical forms, the link graph's edges (in scope or not), scope, the seen test's
 * plan. Cheap, and no lookup for what is out of the crawl anyway. Sources of one batch are all
 * links or all redirects.
 */
export function prepareRegistrations(inputs: readonly RegistrationInput[], rules: RegistrationRules): RegistrationBatch {
  const kinds = new Set(inputs.map((input) => input.kind));
  if (kinds.size > 1) throw new Error(`registerDiscoveredUrlsOfSources: one batch registers links or redirects, not both (got ${[...kinds].join(', ')})`);
  const respectDiscoveryBudget = inputs[0]?.kind === 'link';
  const sessionNames = rules.traps.sessionParamNames ?? DEFAULT_SESSION_PARAM_NAMES;
  const sources = inputs.map((input) => prepareSource(input, rules));
  const twins = sources.map((source) => sessionTwinsOf(source.inScope, sessionNames, rules.canonicalizeOptions));
  const inScope = sources.flatMap((source) => source.inScope);
  const nothingToRead = inScope.length === 0 && sources.every((source) => source.rejections.length === 0);
  // More than any one decision needs (growth for every in-scope host, not only those of fresh
  // URLs), fewer round trips than asking one at a time.
  const query: RegistrationFactsQuery | undefined = nothingToRead
    ? undefined
    : {
        confirm: [...new Set(sources.flatMap((source) => source.plan.toConfirm))],
        hosts: [...new Set(inScope.map((candidate) => candidate.url.host))],
        paths: [...new Map(inScope.filter((c) => isPathVariant(c.url)).map((c) => [pathStatKey(c.url.host, pathWithoutParams(c.url.path)), { host: c.url.host, path: pathWithoutParams(c.url.path) }])).values()],
        depthContent: [...new Map(sources.flatMap((source) => source.inScope.map((c) => [depthContentKey(source.input.depth - 1, c.url.host), { depth: source.input.depth - 1, host: c.url.host }]))).values()],
        present: [...new Set(twins.flatMap((sourceTwins) => [...sourceTwins.values()].map((twin) => twin.fingerprint)))],
        withDiscoveryRoom: respectDiscoveryBudget,
      };
  return { sources, twins, query, respectDiscoveryBudget };
}

function prepareSource(input: RegistrationInput, rules: RegistrationRules): SourceRegistration {
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
    const canonical = tryCanonicalizeUrl(discovered.absoluteUrl, rules.canonicalizeOptions);
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
  source.edges = input.recordEdges === false ? [] : source.candidates.map((candidate) => edgeOf(input, candidate));
  for (const candidate of source.candidates) {
    const scope = rules.scope.check(candidate.url);
    if (scope.inScope) source.inScope.push(candidate);
    else rejectCandidate(source, candidate, `out-of-scope:${scope.code}`, scope.reason);
  }
  // The seen test in tiers: Bloom negatives go on; positives are confirmed in the exact store.
  source.plan = planSeenTest(rules.seenFilter, source.inScope.map((candidate) => candidate.fingerprint));
  return source;
}

function edgeOf(input: RegistrationInput, candidate: Candidate): LinkEdge {
  return {
    source: input.sourceFingerprint,
    target: candidate.fingerprint,
    anchorText: candidate.source.anchorText,
    rel: candidate.source.rel,
    kind: candidate.source.edge ?? (candidate.source.purpose === 'feed' ? 'feed' : input.kind),
  };
}

/** A host's importance from what was read: the operator's setting, else from its in-links; undefined when neutral. */
export function hostImportanceOf(facts: RegistrationFacts, host: string): number | undefined {
  const known = facts.hostImportance.get(host);
  if (known === undefined) return undefined;
  return known.set ?? hostImportanceFromInlinks(known.inlinks);
}

/** The growth counts trap assessment reads, run on across the batch. */
interface RunningGrowth {
  hostUrls: Map<string, number>;
  pathVariants: Map<string, number>;
}

/**
 * Decides every source's URLs in order from the facts read: the seen test's verdict, depth
 * lowerings of known URLs, refusals (depth, the gate, traps), the entries and their priorities,
 * and the in-links the batch adds. Fills in each source's state.
 */
export function decideRegistrations(batch: RegistrationBatch, facts: RegistrationFacts, rules: RegistrationRules): BatchDecision {
  const growth: RunningGrowth = { hostUrls: new Map(facts.hostUrls), pathVariants: new Map(facts.pathVariants) };
  // Fresh URLs of the batch's earlier sources: known to the later ones, as if those had committed.
  const freshInBatch = new Map<string, NewEntry>();
  const decision: BatchDecision = { entries: [], inlinksToKnown: new Map(), crossHostInlinks: new Map() };
  batch.sources.forEach((source, index) => {
    const { input } = source;
    const verdict = settleSeenTest(source.plan, new Set([...source.plan.toConfirm].filter((fingerprint) => facts.depths.has(fingerprint))));
    source.falsePositives = verdict.falsePositives.length;
    for (const fingerprint of verdict.seen) {
      source.fates.set(fingerprint, { kind: 'known' });
      if (facts.depths.get(fingerprint)! > input.depth) source.deeper.push(fingerprint);
    }
    const unseen = new Set(verdict.unseen);
    countInlinks(source, unseen, decision);
    const inBatch = new Set(source.candidates.map((candidate) => candidate.fingerprint));
    const twins = batch.twins[index]!;
    for (const candidate of source.inScope) {
      if (!unseen.has(candidate.fingerprint)) continue;
      const earlier = freshInBatch.get(candidate.fingerprint);
      if (earlier !== undefined) {
        // Registered by an earlier source of this batch: known here, and a shorter path lowers it.
        source.fates.set(candidate.fingerprint, { kind: 'known' });
        if (earlier.depth > input.depth) lowerEntry(earlier, input.depth);
        const weight = inlinkWeightOf(input, candidate);
        if (weight > 0) addEntryInlinks(earlier, weight, hostImportanceOf(facts, candidate.url.host));
        continue;
      }
      if (input.depth > rules.maxDepth) {
        rejectCandidate(source, candidate, DEPTH_REFUSAL, `depth ${input.depth} is beyond the crawl's maxDepth ${rules.maxDepth}`);
        source.tooDeep.push(identityOf(candidate));
        continue;
      }
      const refused = input.gate?.(candidate.url);
      if (refused) {
        rejectCandidate(source, candidate, refused.code, refused.reason);
        continue;
      }
      const twin = twins.get(candidate.fingerprint);
      const twinKnown = twin !== undefined && (facts.present.has(twin.fingerprint) || inBatch.has(twin.fingerprint) || freshInBatch.has(twin.fingerprint));
      const assessment = trapAssessmentOf(candidate, input, facts, growth, rules, twinKnown ? twin : undefined);
      if (assessment.action === 'drop') {
        source.drops.push({ candidate, assessment });
        continue;
      }
      const entry = entryOf(candidate, input, assessment, inlinkWeightOf(input, candidate), hostImportanceOf(facts, candidate.url.host), rules);
      source.entries.push(entry);
      decision.entries.push(entry);
      freshInBatch.set(entry.fingerprint, entry);
      // Growth within this page counts too: a page of 500 calendar links trips the limits.
      const { url } = candidate;
      growth.hostUrls.set(url.host, (growth.hostUrls.get(url.host) ?? 0) + 1);
      const pathKey = pathStatKey(url.host, pathWithoutParams(url.path));
      if (isPathVariant(url)) growth.pathVariants.set(pathKey, (growth.pathVariants.get(pathKey) ?? 0) + 1);
    }
  });
  return decision;
}

/** A page's links are votes for their targets (docs/design.md, "Front queues"), each page once per target. */
function inlinkWeightOf(input: RegistrationInput, candidate: Candidate): number {
  return input.sourceHost === undefined || input.kind !== 'link' || (input.source ?? 'link') !== 'link' ? 0 : inlinkWeight(input.sourceHost, candidate.url.host);
}

/** The source's in-links: to other hosts (their importance), and to URLs the crawl held before the batch. */
function countInlinks(source: SourceRegistration, unseen: ReadonlySet<string>, decision: BatchDecision): void {
  const { input } = source;
  for (const candidate of source.inScope) {
    const weight = inlinkWeightOf(input, candidate);
    if (weight > 0 && input.sourceHost !== candidate.url.host) decision.crossHostInlinks.set(candidate.url.host, (decision.crossHostInlinks.get(candidate.url.host) ?? 0) + weight);
    if (weight > 0 && !unseen.has(candidate.fingerprint)) {
      const bump = decision.inlinksToKnown.get(candidate.fingerprint);
      decision.inlinksToKnown.set(candidate.fingerprint, { host: candidate.url.host, weight: (bump?.weight ?? 0) + weight });
    }
  }
}

/** Traps, by growth pattern around the new URL; and a session-id URL whose session-free twin the crawl holds. */
function trapAssessmentOf(
  candidate: Candidate,
  input: RegistrationInput,
  facts: RegistrationFacts,
  growth: RunningGrowth,
  rules: RegistrationRules,
  knownTwin: { url: string } | undefined,
): TrapAssessment {
  const { url } = candidate;
  const variant = isPathVariant(url);
  const pathKey = pathStatKey(url.host, pathWithoutParams(url.path));
  const assessment = assessTrap(
    url,
    {
      depth: input.depth,
      nowMs: input.nowMs,
      hostUrlCount: growth.hostUrls.get(url.host) ?? 0,
      pathVariantCount: variant ? (growth.pathVariants.get(pathKey) ?? 0) : 0,
      uniqueContentRatioAtDepth: newContentRatio(facts.depthContent.get(depthContentKey(input.depth - 1, url.host))),
    },
    rules.traps,
  );
  if (knownTwin === undefined || assessment.action === 'drop' || inSample(candidate.fingerprint, rules.traps.overflowSampleRate ?? 0.01)) return assessment;
  // The same page is already in the crawl without the session id: fetching it again under a
  // fresh id only feeds the trap. A deterministic sample is kept (demoted) to show the pattern.
  return {
    action: 'drop',
    priorityPenalty: 1,
    reasons: [...assessment.reasons, { code: 'session-id', action: 'drop', detail: `the same URL without its session id (${knownTwin.url}) is already in the crawl` }],
  };
}

/** A fresh URL's frontier entry: its priority from depth, trap penalty, in-links and host importance, raised by what a sitemap says of it. */
function entryOf(
  candidate: Candidate,
  input: RegistrationInput,
  assessment: TrapAssessment,
  inlinks: number,
  hostImportance: number | undefined,
  rules: RegistrationRules,
): NewEntry {
  const linked = priorityOfDiscovery({ depth: input.depth, trapPenalty: assessment.priorityPenalty, inlinks, ...(hostImportance === undefined ? {} : { hostImportance }) });
  // What a sitemap says raises a URL, up to the crawl's cap; never one a trap check demoted.
  const listed = candidate.source.listed;
  const priority =
    listed === undefined || assessment.action === 'demote' ? linked.priority : listedUrlPriority(linked.priority, listed, input.nowMs, { capPriority: rules.sitemapPriorityCap });
  const tier = priority === linked.priority ? linked.tier : tierOf(priority);
  const purpose = candidate.source.purpose ?? input.purpose;
  return {
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
}

/** A fresh entry of the batch linked again by a later source: its in-links, and the priority they earn (never a demoted one's). */
function addEntryInlinks(entry: NewEntry, weight: number, hostImportance: number | undefined): void {
  entry.inlinks = (entry.inlinks ?? 0) + weight;
  if (entry.demotion !== undefined) return;
  const bumped = priorityOfDiscovery({ depth: entry.depth, trapPenalty: 0, inlinks: entry.inlinks, ...(hostImportance === undefined ? {} : { hostImportance }) });
  if (bumped.priority > entry.priority) {
    entry.priority = bumped.priority;
    entry.tier = bumped.tier;
  }
}

/** A fresh entry found again, closer to the seeds, by a later source of its batch: as a depth lowering would lower it. */
function lowerEntry(entry: NewEntry, depth: number): void {
  const atDepth = priorityOfDiscovery({ depth, trapPenalty: 0 });
  entry.depth = depth;
  if (entry.demotion === undefined && atDepth.priority > entry.priority) {
    entry.priority = atDepth.priority;
    entry.tier = atDepth.tier;
  }
}

/** Refuses a candidate: its fate, and the refusal counted with its code. */
export function rejectCandidate(source: SourceRegistration, candidate: Pick<Candidate, 'url' | 'fingerprint'>, code: string, reason: string, detail?: unknown): void {
  source.fates.set(candidate.fingerprint, { kind: 'rejected', code, reason });
  source.rejections.push({ url: candidate.url.url, fingerprint: candidate.fingerprint, code, reason, detail });
}

function identityOf({ url, fingerprint }: Pick<Candidate, 'url' | 'fingerprint'>): UrlIdentity {
  return { fingerprint, url: url.url, canonicalizationVersion: url.version, host: url.host, origin: url.origin };
}

/** For URLs carrying a session id: the session-free form, by the session URL's fingerprint. */
function sessionTwinsOf(candidates: readonly Candidate[], sessionNames: readonly string[], canonicalizeOptions: CanonicalizeOptions): Map<string, { url: string; fingerprint: string }> {
  const twins = new Map<string, { url: string; fingerprint: string }>();
  for (const candidate of candidates) {
    const stripped = withoutSessionParams(candidate.url, sessionNames);
    if (stripped === undefined) continue;
    const canonical = tryCanonicalizeUrl(stripped, canonicalizeOptions);
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
