// `crawler crawl`'s usage text and flag table: what the user reads with --help, and what the parser accepts.
import { DEFAULT_CRAWL_CONFIG } from '../../config/crawl-config.js';
import { DEFAULT_TASK_QUEUE } from '../../contracts/messages.js';
import { dataDirOption } from '../args.js';

const D = DEFAULT_CRAWL_CONFIG;

export const crawlUsage = `usage: crawler crawl [URL...] [--seeds-file F] [--max-pages N] [--max-depth D]
                     [--min-host-delay-ms MS] [--user-agent UA] [--allow-private-networks]
                     [--scope same-host|same-registrable-domain|any] [--allow-prefix P]...
                     [--deny-prefix P]... [--query-policies FILE] [--follow-nofollow]
                     [--trap-options FILE] [--max-discovered-urls N]
                     [--seen-filter-capacity N] [--seen-filter-fp-rate P] [--max-in-flight N]
                     [--max-concurrent-per-host N] [--max-body-bytes N] [--max-decompressed-bytes N]
                     [--connect-timeout-ms MS] [--first-byte-timeout-ms MS] [--body-timeout-ms MS]
                     [--politeness JSON] [--change-field NAME=SELECTOR]... [--listing-page PREFIX]...
                     [--sitemaps declared|declared-and-default|off] [--sitemap-priority-cap P]
                     [--proxy URL]... [--proxy-session-requests N] [--proxy-credentials-file F]
                     [--cost-model KIND[:PRICE]]
                     [--render never|auto|always] [--render-allow HOST|PREFIX]... [--render-deny HOST|PREFIX]...
                     [--render-allow-origin ORIGIN]... [--render-max-renders N] [--render-max-cpu-seconds N]
                     [--render-max-per-host N] [--render-settle-ms MS] [--render-slots N]
                     [--crawl-id ID] [--task-queue Q] [--no-worker] [--log-format text|json]
                     [--metrics-port N] [--data-dir DIR] [--json]
       crawler crawl --resume ID [--no-worker] [--data-dir DIR] [--json]

Runs a crawl to the end: starts the local stack if needed (and leaves it running), runs a worker
in this process unless --no-worker, shows progress, prints a summary and the Temporal UI link.
The summary says why the crawl ended (a limit below, nothing left, or a stop) and how many URLs
it left queued. While Temporal is unreachable it says so on the progress line and keeps waiting
for the crawl. Ctrl-C stops the crawl gracefully and prints its summary (Ctrl-C again: exit 130,
the crawl left running). SIGTERM leaves the crawl running in Temporal, stops this worker and
exits 143; --resume carries the crawl on.

Limits (the crawl ends at the first it reaches; raise the one its summary names):
  --max-pages N            URLs admitted for fetching at most: the page budget (default ${D.maxPages})
  --max-discovered-urls N  new URLs registered at most: the discovery budget
                           (default 20 x --max-pages, at least 1000)
  --max-depth D            links followed from the seeds at most (default ${D.maxDepth})

  --seeds-file F           one URL per line (# comments), up to 1,000,000, each checked before
                           anything starts; past 10,000 they are registered in batches first
  --user-agent UA          product token and contact sent on every request; set your own
                           (default "${D.userAgent}")
  --allow-private-networks fetch loopback, private and link-local addresses (default off)
  --max-in-flight N        URLs handed to host queues and not yet settled (default ${D.maxInFlight})
  --crawl-id ID            readable id, the workflow is crawl/ID (default: the time and 4 hex digits)
  --resume ID              attach to crawl ID (still running after its process died, or
                           finished): run a worker for it, show its progress, print its summary.
                           Re-running a crawl with the --crawl-id of a running one does the same.
  --task-queue Q           Temporal task queue of the crawl's workflows (default ${DEFAULT_TASK_QUEUE})
  --no-worker              run no worker in this process (default: one runs here)
  --metrics-port N         serve the in-process worker's Prometheus metrics at http://127.0.0.1:N/metrics
                           (default off)
  --log-format json        the in-process worker's log as one JSON object per line on stderr
                           (crawlId, host, workflowId where known); default text
  --data-dir DIR           where the local stack keeps its data (default $CRAWLER_DATA_DIR or .crawler-data)
  --json                   stdout is one JSON summary, its "end" says why the crawl ended (default text)

Discovery (docs/discovery.md):
  --sitemaps MODE          sitemaps read to find pages: declared (those robots.txt declares),
                           declared-and-default (also /sitemap.xml of a seed origin whose robots.txt
                           declares none), off (default ${D.sitemaps}); feeds pages link to are read too
  --sitemap-priority-cap P highest priority a sitemap's <priority> or lastmod raises a listed URL to,
                           0..1 (default ${D.sitemapPriorityCap})

Scope and URL identity (docs/url-canonicalization.md):
  --scope MODE             hosts links may lead to: same-host, same-registrable-domain (default), any
  --allow-prefix P         repeatable; only URLs under one of these prefixes (https://host/path or host/path) (default none)
  --deny-prefix P          repeatable; never URLs under these, unless a more specific allow prefix covers them (default none)
  --query-policies FILE    JSON array of verified per-origin query policies (strip tracking parameters, ...) (default none)
  --follow-nofollow        also follow rel=nofollow links (meta robots nofollow is always obeyed) (default off)
  --trap-options FILE      JSON object of crawler-trap thresholds, e.g. {"maxVariantsPerPath": 20} (default none: built-in thresholds)
  --seen-filter-capacity N URLs the per-worker Bloom filter is sized for (0 = off; default max(10000, discovery budget))
  --seen-filter-fp-rate P  its false-positive rate at capacity (default ${D.seenFilterFalsePositiveRate})

Politeness and fetch limits (docs/politeness.md, docs/failures.md):
  --min-host-delay-ms MS   least time between two requests to one host (default ${D.minHostDelayMs})
  --max-concurrent-per-host N  requests one host may have in flight at once (default ${D.maxConcurrentFetchesPerHost})
  --max-body-bytes N       wire body limit (default 10 MiB); --max-decompressed-bytes N: decoded (default 40 MiB)
  --connect-timeout-ms, --first-byte-timeout-ms, --body-timeout-ms  the three fetch deadlines
                           (default ${D.connectTimeoutMs / 1000} s, ${D.firstByteTimeoutMs / 1000} s, ${D.bodyTimeoutMs / 1000} s)
  --politeness JSON        e.g. '{"throttleBaseDelayMs": 10000, "circuitCooldownMs": 300000, "retryDelayScale": 2}'
                           (default {}: docs/politeness.md lists each knob's default)
                           URLs whose robots.txt stays unreachable are deferred after
                           robotsUnreachablePatienceMs (default here 180000; robots.txt asked again
                           every robotsUnreachableRetryMs, default here 60000)

Proxies (docs/proxies.md):
  --proxy URL              repeatable; every request goes through these proxies (http: or https:,
                           a CONNECT tunnel each), a host keeping one for a session of requests
                           (default none: requests go direct)
  --proxy-session-requests N  requests a host sends through one proxy before the next (default 100)
  --proxy-credentials-file F  lines of user:password (every proxy) or http://user:password@host:port
                           (that proxy), read by this process's worker; or CRAWLER_PROXY_CREDENTIALS
                           in its environment (default none). Never put them in --proxy: the
                           config is stored.

Cost (docs/storage-and-recrawl.md, "What a fetch costs"):
  --cost-model KIND[:PRICE]  gateway-bytes (every byte through a proxy gateway, failures too),
                           successful-requests (API credits: failures free) or direct-bytes, at PRICE
                           per GB or per successful request; status reports the bill (default
                           gateway-bytes with --proxy, else direct-bytes, no price)
Rendering pages built by JavaScript (docs/rendering.md):
  --render MODE            never, auto (decided per page from its HTML; the default when the browser
                           is installed) or always; without the browser rendering is off (said once)
  --render-allow H|P       repeatable; render these hosts or URL prefixes whatever their HTML says,
                           and their hash routes (#/...) (default none)
  --render-deny H|P        repeatable; never render these hosts or URL prefixes (default none)
  --render-allow-origin O  repeatable; subresources may come from this origin too (a CDN), each
                           request paced as its host's; other origins are refused (default none)
  --render-max-renders N, --render-max-cpu-seconds N, --render-max-per-host N
                           the crawl's render budget (default 1000 renders, 3600 browser CPU s,
                           200 per host); past it pages keep their HTTP result (render-deferred)
  --render-settle-ms MS    after DOMContentLoaded, the longest a render waits to settle (default 3000)
  --render-slots N         renders this process runs at once, a browser each (default 1 with the browser)

Change detection (docs/storage-and-recrawl.md):
  --change-field NAME=SELECTOR  repeatable; a page changed when the text of these CSS selectors did
                           (e.g. price=.price stock=#availability), not when the rest of its text did
                           (default none: the main text decides)
  --listing-page PREFIX    repeatable; pages under this URL prefix are listings (category, search
                           pages): each linked item's entry is kept, and a changed entry tells the
                           recrawl cycles that item changed, without visiting it (default none)`;

export const crawlOptions = {
  ...dataDirOption,
  'seeds-file': { type: 'string' },
  'max-pages': { type: 'string' },
  'max-depth': { type: 'string' },
  'min-host-delay-ms': { type: 'string' },
  'user-agent': { type: 'string' },
  'allow-private-networks': { type: 'boolean' },
  scope: { type: 'string' },
  'allow-prefix': { type: 'string', multiple: true },
  'deny-prefix': { type: 'string', multiple: true },
  'query-policies': { type: 'string' },
  'follow-nofollow': { type: 'boolean' },
  'trap-options': { type: 'string' },
  'max-discovered-urls': { type: 'string' },
  'seen-filter-capacity': { type: 'string' },
  'seen-filter-fp-rate': { type: 'string' },
  'max-in-flight': { type: 'string' },
  'max-concurrent-per-host': { type: 'string' },
  'max-body-bytes': { type: 'string' },
  'max-decompressed-bytes': { type: 'string' },
  'connect-timeout-ms': { type: 'string' },
  'first-byte-timeout-ms': { type: 'string' },
  'body-timeout-ms': { type: 'string' },
  politeness: { type: 'string' },
  'change-field': { type: 'string', multiple: true },
  'listing-page': { type: 'string', multiple: true },
  sitemaps: { type: 'string' },
  'sitemap-priority-cap': { type: 'string' },
  proxy: { type: 'string', multiple: true },
  'proxy-session-requests': { type: 'string' },
  'proxy-credentials-file': { type: 'string' },
  'cost-model': { type: 'string' },
  render: { type: 'string' },
  'render-allow': { type: 'string', multiple: true },
  'render-deny': { type: 'string', multiple: true },
  'render-allow-origin': { type: 'string', multiple: true },
  'render-max-renders': { type: 'string' },
  'render-max-cpu-seconds': { type: 'string' },
  'render-max-per-host': { type: 'string' },
  'render-settle-ms': { type: 'string' },
  'render-slots': { type: 'string' },
  'crawl-id': { type: 'string' },
  resume: { type: 'string' },
  'task-queue': { type: 'string' },
  'no-worker': { type: 'boolean' },
  'log-format': { type: 'string' },
  'metrics-port': { type: 'string' },
  json: { type: 'boolean' },
} as const;
