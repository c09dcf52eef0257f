/**
 * What link registration decides over: the discovered URLs of a batch of sources, the facts read
 * about them, and the rows its decisions become (frontier entries, depth lowerings, in-link bumps,
 * refusals, growth figures). Plain data: the storage layer's rows have the same shapes.
 */
import type { ListedUrlSignals, SeenTestPlan } from '../frontier/index.js';
import type { CanonicalUrl, TrapAssessment } from '../url/index.js';

/** How a URL entered a crawl's frontier (frontier.source). */
export type DiscoverySource = 'seed' | 'link' | 'redirect' | 'sitemap' | 'feed' | 'canonical' | 'robots';

/** The kind of an edge in the link graph. 'feed': a page's <link rel=alternate> to its RSS or Atom feed. */
export type LinkEdgeKind = 'link' | 'redirect' | 'canonical' | 'feed';

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
  edge?: LinkEdgeKind;
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

/** A canonical URL's identity row, shared by every crawl. */
export interface UrlIdentity {
  fingerprint: string;
  url: string;
  canonicalizationVersion: number;
  host: string;
  origin: string;
}

/** A URL new to the crawl's frontier, as registration decided it. */
export interface NewEntry extends UrlIdentity {
  depth: number;
  priority: number;
  tier: number;
  purpose?: string;
  source?: DiscoverySource;
  /** Weighted in-links from the pages that registered it. Default 0. */
  inlinks?: number;
  discoveredFrom?: string;
  anchorText?: string;
  redirectHops?: number;
  redirectChain?: string[];
  /** The trap checks' reasons when they demoted it. */
  demotion?: unknown;
}

export interface LinkEdge {
  source: string;
  target: string;
  anchorText?: string;
  rel?: string;
  kind: LinkEdgeKind;
}

/** A URL refused, counted by its code. */
export interface RefusedUrl {
  url: string;
  fingerprint: string;
  /** Stable code for counting: `out-of-scope:host`, `depth`, `trap:calendar`, `robots-disallowed`, ... */
  code: string;
  /** For operators: what was measured and what happens next. */
  reason: string;
  detail?: unknown;
}

/** A known URL a shorter path reached: its new depth, and the priority that depth earns. */
export interface DepthLowering {
  fingerprint: string;
  depth: number;
  priority: number;
  tier: number;
}

/** In-links a batch adds to a URL the crawl held, and the priority they earn it. */
export interface InlinkBump {
  fingerprint: string;
  /** Weighted in-links to add. */
  inlinks: number;
  priority: number;
  tier: number;
}

export interface HostGrowth {
  urls: number;
  demoted: number;
  dropped: number;
  /** Weighted in-links its pages got from other hosts. Default 0. */
  inlinks?: number;
}

export interface PathGrowth {
  host: string;
  path: string;
  variants: number;
}

/** What a batch's decisions need read, in one statement. */
export interface RegistrationFactsQuery {
  /** Bloom positives to confirm in the exact store, with their depths. */
  confirm: readonly string[];
  /** Hosts whose growth (URLs registered) trap assessment needs. */
  hosts: readonly string[];
  /** Paths whose variants it needs. */
  paths: readonly { host: string; path: string }[];
  /** Hosts whose new content at a depth it needs. */
  depthContent: readonly { depth: number; host: string }[];
  /** Fingerprints whose presence in the frontier it needs (session-free twins). */
  present: readonly string[];
  /** Read the discovery budget's room too. */
  withDiscoveryRoom: boolean;
}

/** What was read for a batch's decisions. */
export interface RegistrationFacts {
  /** Those of `confirm` the crawl's frontier holds, with their depth. */
  depths: ReadonlyMap<string, number>;
  /** Their weighted in-links so far. */
  inlinks: ReadonlyMap<string, number>;
  /** Host importance of the hosts asked for: the operator's setting, else from their in-links in this crawl (absent: neutral). */
  hostImportance: ReadonlyMap<string, { set: number | null; inlinks: number }>;
  /** URLs registered so far, by host. */
  hostUrls: ReadonlyMap<string, number>;
  /** Variants registered so far, by pathStatKey(host, path). */
  pathVariants: ReadonlyMap<string, number>;
  /** Pages and pages with new content, by depthContentKey(depth, host). */
  depthContent: ReadonlyMap<string, { pages: number; newContent: number }>;
  /** Those of `present` the crawl's frontier holds. */
  present: ReadonlySet<string>;
  /** The discovery budget's room, when asked. */
  discoveryRoom?: number;
  /** Refusals counted so far. */
  rejectionsCounted: number;
}

export interface Candidate {
  url: CanonicalUrl;
  fingerprint: string;
  source: DiscoveredUrl;
}

/** One source's registration while its batch decides: what it found, and what became of it. */
export interface SourceRegistration {
  input: RegistrationInput;
  /** One per fingerprint, in discovery order. */
  candidates: Candidate[];
  edges: LinkEdge[];
  inScope: Candidate[];
  plan: SeenTestPlan;
  fates: Map<string, UrlFate>;
  rejections: RefusedUrl[];
  /** Fresh URLs of this source, in the batch's entries. */
  entries: NewEntry[];
  drops: { candidate: Candidate; assessment: TrapAssessment }[];
  /** Refused beyond maxDepth: identities kept, so a shorter path found later may admit them. */
  tooDeep: UrlIdentity[];
  /** URLs the crawl held deeper than this source registers them. */
  deeper: string[];
  falsePositives: number;
}
