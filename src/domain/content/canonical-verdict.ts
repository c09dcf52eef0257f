/**
 * Whether a page's rel=canonical hint is obeyed (docs/design.md, "URL identity" and "Content identity": the hint is evidence about URL
 * identity, never a blind redirect). Obeyed, the hinted URL becomes the representative of a
 * near-duplicate cluster holding the hinting page; otherwise the hint is kept as evidence only.
 */
import { isNearDuplicate } from './identity.js';
import type { ContentIdentity } from './identity.js';

/** What the decision reads of one side of the hint, from its latest parsed document. */
export interface CanonicalSide {
  /** Normalized text hash; null for a page without text. */
  normalizedHash: string | null;
  /** SimHash and MinHash; undefined when the page has no text. */
  identity: ContentIdentity | undefined;
}

export interface CanonicalHintFacts {
  /** The page that gives the hint, and its host. */
  source: CanonicalSide;
  sourceHost: string;
  /** The hinted URL's host, known from the URL alone. */
  targetHost: string;
  /** The hinted URL as parsed; undefined until the crawl has parsed it (the hint waits). */
  target: (CanonicalSide & {
    /** Its latest fetch answered with a redirect: it is not a page of its own. */
    redirected: boolean;
    /** Its own canonical hint names another URL: it says itself that it is not canonical. */
    pointsElsewhere: boolean;
  }) | undefined;
}

export type CanonicalEvidenceReason = 'cross-host' | 'redirect' | 'non-canonical' | 'different-content';

export type CanonicalVerdict =
  | { kind: 'pending' }
  | { kind: 'obeyed'; match: 'exact' | 'near' }
  | { kind: 'evidence'; reason: CanonicalEvidenceReason };

/**
 * A hint is obeyed only when its target is on the same host, answered itself (no redirect), does
 * not name another canonical URL, and holds the same content (the normalized text hash) or a near
 * duplicate of it (isNearDuplicate). Any other hint is evidence: a site may point every page at its
 * home page, or at a URL of someone else's host, by mistake or on purpose.
 */
export function canonicalHintVerdict(facts: CanonicalHintFacts): CanonicalVerdict {
  const { source, target } = facts;
  if (facts.sourceHost !== facts.targetHost) return { kind: 'evidence', reason: 'cross-host' };
  if (target === undefined) return { kind: 'pending' };
  if (target.redirected) return { kind: 'evidence', reason: 'redirect' };
  if (target.pointsElsewhere) return { kind: 'evidence', reason: 'non-canonical' };
  if (source.normalizedHash !== null && source.normalizedHash === target.normalizedHash) return { kind: 'obeyed', match: 'exact' };
  if (source.identity !== undefined && target.identity !== undefined && isNearDuplicate(source.identity, target.identity).near) return { kind: 'obeyed', match: 'near' };
  return { kind: 'evidence', reason: 'different-content' };
}
