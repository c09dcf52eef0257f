// Crawlee's CheerioCrawler on the benchmark's web, in its own process (its memory and CPU
// measured apart). Two modes:
//   'stock':    sameDomainDelaySecs as documented. Crawlee keys that delay by registrable domain
//               (tldts getDomain), which is null for an IP address, and then skips the delay:
//               on 127.x.y.z hosts it crawls without any per-host delay.
//   'per-host': the same mechanism (requests put back in the queue until the delay has passed,
//               measured from the previous request's start), keyed by hostname, so each loopback
//               host gets the delay. The fair comparison with our crawler.
// Both obey robots.txt for our product token and follow links to every host.
import { readFileSync } from 'node:fs';
import { CheerioCrawler, Configuration, log, type IRequestList, type IRequestManager, type Request, type RequestProvider } from 'crawlee';

export interface CrawleeChildOptions {
  mode: 'stock' | 'per-host';
  seeds: string[];
  delayMs: number;
  maxConcurrency: number;
  maxRequestsPerCrawl: number;
  userAgent: string;
  productToken: string;
  timeoutMs: number;
  /** Crawlee's default persistent storage (request queue and datasets on disk) instead of memory. Default false. */
  persistStorage?: boolean;
  /** Enqueue only links to the page's own host (Crawlee's 'same-hostname'), not every link ('all', the default). */
  sameHostname?: boolean;
}

export interface CrawleeChildResult {
  mode: CrawleeChildOptions['mode'];
  pagesHandled: number;
  pagesFailed: number;
  durationMs: number;
  stats: Record<string, unknown>;
  timedOut: boolean;
}

type RequestSource = IRequestList | RequestProvider | IRequestManager;

class PerHostDelayCheerioCrawler extends CheerioCrawler {
  private readonly lastStartByHost = new Map<string, number>();
  constructor(
    options: ConstructorParameters<typeof CheerioCrawler>[0],
    config: Configuration,
    private readonly hostDelayMs: number,
  ) {
    super(options, config);
  }

  // Crawlee's delayRequest with the hostname as key instead of the registrable domain.
  protected override delayRequest(request: Request, source: RequestSource): boolean {
    const host = new URL(request.url).hostname;
    const now = Date.now();
    const last = this.lastStartByHost.get(host);
    if (last === undefined || now - last >= this.hostDelayMs) {
      this.lastStartByHost.set(host, now);
      return false;
    }
    setTimeout(() => {
      void (source as RequestProvider).reclaimRequest(request, { forefront: (request.userData as { __crawlee?: { forefront?: boolean } })?.__crawlee?.forefront });
    }, last + this.hostDelayMs - now);
    return true;
  }
}

const options = JSON.parse(readFileSync(process.env['BENCH_CRAWLEE_OPTIONS_FILE'] ?? '', 'utf8')) as CrawleeChildOptions;
log.setLevel(log.LEVELS.ERROR);
const config = new Configuration({ persistStorage: options.persistStorage === true, purgeOnStart: true });
let handled = 0;
let failed = 0;
const crawlerOptions: ConstructorParameters<typeof CheerioCrawler>[0] = {
  sameDomainDelaySecs: options.delayMs / 1000,
  maxConcurrency: options.maxConcurrency,
  maxRequestsPerCrawl: options.maxRequestsPerCrawl,
  respectRobotsTxtFile: { userAgent: options.productToken },
  preNavigationHooks: [
    (_context, gotOptions) => {
      gotOptions.headers = { ...gotOptions.headers, 'user-agent': options.userAgent };
    },
  ],
  async requestHandler({ enqueueLinks }) {
    handled += 1;
    await enqueueLinks({ strategy: options.sameHostname === true ? 'same-hostname' : 'all' });
  },
  failedRequestHandler() {
    failed += 1;
  },
};
const crawler =
  options.mode === 'per-host' ? new PerHostDelayCheerioCrawler(crawlerOptions, config, options.delayMs) : new CheerioCrawler(crawlerOptions, config);

let timedOut = false;
const timer = setTimeout(() => {
  timedOut = true;
  crawler.stop('benchmark time limit');
}, options.timeoutMs);
const startedAt = performance.now();
const stats = await crawler.run(options.seeds);
const durationMs = performance.now() - startedAt;
clearTimeout(timer);
const result: CrawleeChildResult = { mode: options.mode, pagesHandled: handled, pagesFailed: failed, durationMs, stats: { ...stats }, timedOut };
process.send?.(result, () => process.exit(0));
