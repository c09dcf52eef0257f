import type { Client } from '@temporalio/client';
import type { HttpClient } from '../http/index.js';
import type { Pool } from '../storage/postgres/pool.js';
import type { BodyStore } from '../storage/object-store/body-store.js';
import type { CrawlMetricsSink } from './metrics/crawl-metrics-sink.js';
import type { HtmlExtractor } from '../parse/html-parse-pool.js';
import type { CrawlProxyConfig } from '../config/crawl-config.js';
import type { BrowserPool } from '../browser/index.js';

/**
 * What activities need from the outside world, injected by the worker (the composition root) so
 * that tests can wire real local services and nothing here reaches for globals.
 */
export interface ActivityDeps {
  pool: Pool;
  bodies: BodyStore;
  /**
   * The HTTP client for a crawl's identity, network policy and proxies (clients are pooled per
   * combination; the worker holds the proxies' credentials).
   */
  http: (options: { userAgent: string; allowPrivateNetworks: boolean; proxy?: CrawlProxyConfig }) => HttpClient;
  /** To wake host workflows (signal) and check that they run. */
  temporal: Client;
  /**
   * Starts host workflows: a client on the worker's own connection (NativeConnection), so the
   * server may hand a new run's first workflow task straight to this worker (eager start) instead
   * of through a task queue. Default: `temporal`.
   */
  workflowStarter?: Client;
  /** Names this worker in robots leases; the identity it polls Temporal with. */
  workerId: string;
  /** Where bodies are spooled (gzipped) between the socket and the object store. */
  spoolDir: string;
  /** Milliseconds since the epoch; tests may freeze it. */
  now: () => number;
  /** Where fetch, storage and frontier figures are counted (Prometheus, when the worker serves metrics). */
  metrics?: CrawlMetricsSink;
  /** Extracts HTML pages: the worker's HtmlParsePool, off the event loop. Default on the calling thread. */
  extractHtml?: HtmlExtractor;
  /**
   * Aborted when the worker begins to shut down: a fetch burst sends no new request (its untried
   * URLs go back to the workflow), so the worker's grace period finishes work instead of adding it.
   */
  stopping?: AbortSignal;
  /** The worker's browsers, when it has render slots (crawler worker --render-slots N); absent: it renders nothing. */
  browsers?: BrowserPool;
}
