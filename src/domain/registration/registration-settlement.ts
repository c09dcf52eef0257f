/**
 * The registration decision after the atomic insert said which entries went in: the known URLs a
 * shorter path lowers, the in-links known URLs earn, each URL's fate (registered, known, over
 * budget), the refusals of trap drops, and the growth and seen-test figures for operators.
 */
import { isPathVariant, pathWithoutParams } from '../url/index.js';
import {
  DISCOVERY_BUDGET_REFUSAL,
  hostImportanceOf,
  pathStatKey,
  priorityOfDiscovery,
  rejectCandidate,
  type BatchDecision,
  type RegistrationBatch,
} from './registration-decision.js';
import type {
  DepthLowering,
  HostGrowth,
  InlinkBump,
  PathGrowth,
  RegistrationFacts,
  RegistrationResult,
  SourceRegistration,
  UrlFate,
} from './registration-types.js';

/** What the atomic insert left: the entries inserted, and the depths of those the frontier held already. */
export interface InsertOutcome {
  inserted: ReadonlySet<string>;
  /** Entries not inserted that the crawl's frontier holds, with their depth. */
  present: ReadonlyMap<string, number>;
  /** Whether the discovery budget bound (its room was less than the entries). */
  budgetBound: boolean;
}

/**
 * Known URLs this batch reached by a shorter path: those the seen test found deeper, and entries
 * another worker registered deeper meanwhile. Parses run out of breadth-first order (hosts side by
 * side, bursts), so a page may have been found first by a longer path: its depth is the shortest
 * path's (Heritrix's hop count would keep the first).
 */
export function depthLoweringsOf(batch: RegistrationBatch, present: ReadonlyMap<string, number>): DepthLowering[] {
  return batch.sources.flatMap((source) => {
    const deeper = [...source.deeper, ...source.entries.filter((entry) => (present.get(entry.fingerprint) ?? -1) > source.input.depth).map((entry) => entry.fingerprint)];
    const atDepth = priorityOfDiscovery({ depth: source.input.depth, trapPenalty: 0 });
    return deeper.map((fingerprint): DepthLowering => ({ fingerprint, depth: source.input.depth, ...atDepth }));
  });
}

/** The URLs the crawl held already: their new in-links, and the priority those earn them at their (possibly lowered) depth. */
export function inlinkBumpsOf(decision: BatchDecision, facts: RegistrationFacts, lowerings: readonly DepthLowering[]): InlinkBump[] {
  const loweredTo = new Map(lowerings.map((lowering) => [lowering.fingerprint, lowering.depth]));
  const bumps: InlinkBump[] = [];
  for (const [fingerprint, { host, weight }] of decision.inlinksToKnown) {
    const depth = Math.min(facts.depths.get(fingerprint) ?? Infinity, loweredTo.get(fingerprint) ?? Infinity);
    if (!Number.isFinite(depth)) continue;
    const hostImportance = hostImportanceOf(facts, host);
    const bumped = priorityOfDiscovery({ depth, trapPenalty: 0, inlinks: (facts.inlinks.get(fingerprint) ?? 0) + weight, ...(hostImportance === undefined ? {} : { hostImportance }) });
    bumps.push({ fingerprint, inlinks: weight, ...bumped });
  }
  return bumps;
}

/**
 * Each entry's fate: inserted, there already (another worker registered it meanwhile), or left
 * out by the budget. Entries neither inserted nor present were left out by the budget only when it
 * bound; else the crawl's kind kept them out (a recrawl or sweep registers only URLs never
 * fetched): known URLs. Those over budget are counted with the refusals, so the crawl's end can
 * say the budget left URLs out. Then the trap drops, refused after them.
 */
export function settleFates(batch: RegistrationBatch, outcome: InsertOutcome, maxDiscoveredUrls: number): void {
  for (const source of batch.sources) {
    for (const entry of source.entries) {
      const fate: UrlFate = outcome.inserted.has(entry.fingerprint)
        ? { kind: 'registered' }
        : outcome.present.has(entry.fingerprint) || !outcome.budgetBound
          ? { kind: 'known' }
          : { kind: 'over-budget' };
      source.fates.set(entry.fingerprint, fate);
      if (fate.kind === 'over-budget') {
        source.rejections.push({
          url: entry.url,
          fingerprint: entry.fingerprint,
          code: DISCOVERY_BUDGET_REFUSAL,
          reason: `the crawl's discovery budget (maxDiscoveredUrls ${maxDiscoveredUrls}) is spent`,
        });
      }
    }
    for (const { candidate, assessment } of source.drops) {
      const codes = [...new Set(assessment.reasons.filter((reason) => reason.action === 'drop').map((reason) => reason.code))];
      rejectCandidate(source, candidate, `trap:${codes.join('+')}`, assessment.reasons.map((reason) => `${reason.code} (${reason.detail})`).join('; '), assessment.reasons);
    }
  }
}

/** Growth figures for operators: URLs registered and demoted, trap drops and cross-host in-links by host; new variants by path. */
export function growthOf(batch: RegistrationBatch, decision: BatchDecision, inserted: ReadonlySet<string>): { hosts: Map<string, HostGrowth>; paths: PathGrowth[] } {
  const hosts = new Map<string, HostGrowth>();
  const paths = new Map<string, PathGrowth>();
  const growthOfHost = (host: string): HostGrowth => {
    let stat = hosts.get(host);
    if (!stat) hosts.set(host, (stat = { urls: 0, demoted: 0, dropped: 0 }));
    return stat;
  };
  for (const entry of decision.entries) {
    if (!inserted.has(entry.fingerprint)) continue;
    const stat = growthOfHost(entry.host);
    stat.urls += 1;
    if (entry.demotion !== undefined) stat.demoted += 1;
  }
  for (const [host, weight] of decision.crossHostInlinks) growthOfHost(host).inlinks = (growthOfHost(host).inlinks ?? 0) + weight;
  for (const source of batch.sources) {
    const own = new Set(source.entries.map((entry) => entry.fingerprint));
    for (const candidate of source.inScope) {
      if (!inserted.has(candidate.fingerprint) || !own.has(candidate.fingerprint) || !isPathVariant(candidate.url)) continue;
      const path = pathWithoutParams(candidate.url.path);
      const key = pathStatKey(candidate.url.host, path);
      const stat = paths.get(key) ?? { host: candidate.url.host, path, variants: 0 };
      stat.variants += 1;
      paths.set(key, stat);
    }
    for (const { candidate } of source.drops) growthOfHost(candidate.url.host).dropped += 1;
  }
  return { hosts, paths: [...paths.values()] };
}

/** One source's seen-test figures. */
export function seenFiguresOf(source: SourceRegistration): { checked: number; unfiltered: number; negatives: number; positives: number; falsePositives: number } {
  const { plan } = source;
  return {
    checked: source.inScope.length,
    unfiltered: plan.filtered ? 0 : source.inScope.length,
    negatives: plan.filtered ? plan.negatives.size : 0,
    positives: plan.toConfirm.length,
    falsePositives: source.falsePositives,
  };
}

/** Each source's result: what it registered, its edges, its refusals, and every canonical URL's fate in discovery order. */
export function registrationResultsOf(batch: RegistrationBatch, inserted: ReadonlySet<string>): RegistrationResult[] {
  return batch.sources.map((source) => ({
    registered: source.entries.filter((entry) => inserted.has(entry.fingerprint)).length,
    edges: source.edges.length,
    rejected: source.rejections.map((rejection) => ({ url: rejection.url, reason: `${rejection.code}: ${rejection.reason}` })),
    outcomes: source.candidates.map((candidate) => ({ url: candidate.url.url, fingerprint: candidate.fingerprint, fate: source.fates.get(candidate.fingerprint) ?? { kind: 'known' } })),
  }));
}
