/** Figures the workflows report through queries, memos and the CLI. Plain JSON. */

export type CrawlState = 'starting' | 'running' | 'paused' | 'stopping' | 'finished' | 'stopped';

export interface FrontierCounts {
  /** Queued URLs by priority tier (front queues), tier 0 first. */
  queuedByTier: number[];
  queued: number;
  /** Handed to host queues and not yet settled. */
  inFlight: number;
  done: number;
  failed: number;
  dead: number;
  dropped: number;
  /** URLs registered in this crawl (the discovery budget spent). */
  discovered: number;
  /** URLs handed out so far (counts against maxPages). */
  admitted: number;
  /** Pages fetched with a response body stored. */
  fetched: number;
}

export interface AdmissionStatus {
  maxInFlight: number;
  /** 1 full speed, 0 closed: the backpressure factor (000 §9). */
  admitFactor: number;
  /** Downstream lag in seconds of work: parse backlog / parse rate. */
  backlogSeconds: number;
  reason: string;
  /** Most URLs one host claim may take: the in-flight limit shared over the hosts with work. Absent before the first tick. */
  hostClaimCap?: number;
}

export interface CrawlStatus {
  crawlId: string;
  state: CrawlState;
  counts: FrontierCounts;
  admission: AdmissionStatus;
  /** Host workflows currently holding work for this crawl. */
  activeHosts: number;
  errorsByType: Record<string, number>;
  startedAtMs: number;
  updatedAtMs: number;
}

export interface CrawlSummary {
  crawlId: string;
  state: 'finished' | 'stopped';
  pagesFetched: number;
  urlsDiscovered: number;
  errorsByType: Record<string, number>;
  /** URLs left for a later crawl, by reason (robots-unreachable: robots.txt stayed unreachable past the crawl's patience). Never fetched. */
  deferred: Record<string, number>;
  durationMs: number;
  startedAtMs: number;
  finishedAtMs: number;
}

export interface HostStatus {
  host: string;
  queueLength: number;
  inFlight: number;
  pendingParses: number;
  nextFetchAtMs: number;
  paused: boolean;
  delayOverrideMs: number | null;
  quarantinedReason: string | null;
  fetchesThisRun: number;
  run: number;
}
