/**
 * A page's rel=canonical hint (docs/design.md, "URL identity" and "Content identity"): registered as a discovery when it names another URL
 * in scope (source 'canonical', a 'canonical' edge in the link graph), then judged once both pages
 * are parsed (canonicalHintVerdict). An obeyed hint makes the hinted URL the representative of a
 * near-duplicate cluster holding the hinting page; any other is kept as evidence. Runs in the
 * transaction that records a parse batch, after its near-duplicate clustering.
 */
import { canonicalHintVerdict, fromSignedInt64String, SHORT_DOCUMENT_CHARS, type CanonicalSide, type ContentIdentity } from '../../domain/content/index.js';
import { tryCanonicalizeUrl, urlFingerprint } from '../../domain/url/index.js';
import {
  canonicalEndFacts,
  clusterUnderCanonical,
  pendingHintsTo,
  recordCanonicalHints,
  type CanonicalClusterMove,
  type CanonicalEndFacts,
  type CanonicalHintRow,
  type HintPair,
} from '../../storage/postgres/canonical-repository.js';
import type { PoolClient } from '../../storage/postgres/pool.js';
import type { CrawlContext } from '../frontier/crawl-context.js';
import type { RegistrationInput } from '../frontier/link-registration.js';

/** What the hint step needs of a page of the batch. */
export interface HintingPage {
  fingerprint: string;
  depth: number;
  /** The hint as extracted (absolute), or null. */
  canonicalHint: string | null;
}

/** The hint's target in the crawl's canonical form, when it names another URL than the page itself. */
export function canonicalTargetOf(context: CrawlContext, page: HintingPage): { url: string; fingerprint: string } | undefined {
  if (page.canonicalHint === null) return undefined;
  const canonical = tryCanonicalizeUrl(page.canonicalHint, context.canonicalizeOptions);
  if (!canonical.ok) return undefined;
  const fingerprint = urlFingerprint(canonical.value.url);
  return fingerprint === page.fingerprint ? undefined : { url: canonical.value.url, fingerprint };
}

/**
 * The registration of each page's hinted URL: at the page's own depth (the same page, if the hint
 * holds), through scope, traps and the discovery budget like a link, with a 'canonical' edge.
 */
export function canonicalRegistrations(context: CrawlContext, pages: readonly HintingPage[], nowMs: number): RegistrationInput[] {
  return pages.flatMap((page) => {
    const target = canonicalTargetOf(context, page);
    if (target === undefined) return [];
    return [{ sourceFingerprint: page.fingerprint, depth: page.depth, urls: [{ absoluteUrl: target.url, rel: 'canonical', edge: 'canonical' as const }], kind: 'link' as const, source: 'canonical' as const, nowMs }];
  });
}

/** The hints other pages gave that wait for one of `pages` to be parsed (settleCanonicalHints' `waiting`). */
export async function hintsWaitingFor(client: PoolClient, pages: readonly HintingPage[]): Promise<HintPair[]> {
  return pendingHintsTo(client, pages.map((page) => page.fingerprint));
}

/**
 * Judges the hints the batch's pages give, and those waiting for a page of the batch (`waiting`,
 * read with hintsWaitingFor when not given); records the verdicts and, for each obeyed one, the
 * cluster. Three statements at most, whatever the batch.
 */
export async function settleCanonicalHints(client: PoolClient, context: CrawlContext, pages: readonly HintingPage[], waitingRead?: readonly HintPair[]): Promise<void> {
  const given = pages.flatMap((page) => {
    const target = canonicalTargetOf(context, page);
    return target === undefined ? [] : [{ source: page.fingerprint, target: target.fingerprint }];
  });
  const waiting = waitingRead ?? (await hintsWaitingFor(client, pages));
  const pairs = [...new Map([...given, ...waiting].map((pair) => [`${pair.source}${pair.target}`, pair])).values()];
  if (pairs.length === 0) return;
  const facts = await canonicalEndFacts(client, [...new Set(pairs.flatMap((pair) => [pair.source, pair.target]))]);
  const rows: CanonicalHintRow[] = [];
  const moves: CanonicalClusterMove[] = [];
  for (const { source, target } of pairs) {
    const from = facts.get(source);
    const to = facts.get(target);
    // The hinting page is parsed (it gave the hint), so it has its facts; a target never recorded has none.
    if (from?.document === undefined || to === undefined) continue;
    const verdict = canonicalHintVerdict({
      sourceHost: from.host,
      targetHost: to.host,
      source: sideOf(from),
      target: to.document === undefined && !to.redirected ? undefined : { ...sideOf(to), redirected: to.redirected, pointsElsewhere: pointsElsewhere(context, to) },
    });
    rows.push({ source, target, crawlId: context.record.id, verdict: verdict.kind, reason: verdict.kind === 'obeyed' ? verdict.match : verdict.kind === 'evidence' ? verdict.reason : null });
    if (verdict.kind === 'obeyed' && to.document !== undefined) {
      moves.push({
        member: source,
        memberGeneration: from.document.generation,
        memberParserVersion: from.document.parserVersion,
        representative: target,
        representativeGeneration: to.document.generation,
        representativeParserVersion: to.document.parserVersion,
      });
    }
  }
  await recordCanonicalHints(client, rows);
  await clusterUnderCanonical(client, moves);
}

function sideOf(end: CanonicalEndFacts): CanonicalSide {
  const doc = end.document;
  if (doc === undefined) return { normalizedHash: null, identity: undefined };
  const identity: ContentIdentity | undefined =
    doc.minhash !== null && doc.minhash.length > 0
      ? { textLength: Math.min(doc.textLength, SHORT_DOCUMENT_CHARS - 1), simhash: doc.simhashSigned === null ? 0n : fromSignedInt64String(doc.simhashSigned), minhash: doc.minhash }
      : doc.simhashSigned === null
        ? undefined
        : { textLength: Math.max(doc.textLength, SHORT_DOCUMENT_CHARS), simhash: fromSignedInt64String(doc.simhashSigned) };
  return { normalizedHash: doc.normalizedHash, identity };
}

/** The target's own hint names another URL than itself. */
function pointsElsewhere(context: CrawlContext, end: CanonicalEndFacts): boolean {
  const hint = end.document?.canonicalHint;
  if (hint === null || hint === undefined) return false;
  const canonical = tryCanonicalizeUrl(hint, context.canonicalizeOptions);
  return canonical.ok && urlFingerprint(canonical.value.url) !== end.fingerprint;
}
