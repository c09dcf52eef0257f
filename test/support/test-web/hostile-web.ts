import { TestWebError } from './errors.js';
import { PRODUCT_TOKEN } from './generate-web.js';
import { renderHtmlPage } from './html.js';
import { loopbackHosts } from './loopback.js';
import type { Behavior, HostSpec, PageSpec, WebSpec } from './types.js';

const MIB = 1024 * 1024;

/** Options for {@link hostileWeb}. */
export interface HostileWebOptions {
  /** First address considered. Default '127.40.0.0' (eight hosts from 127.40.0.1). */
  base?: string;
  /** Token the robots groups name. Default 'DurableCrawler'. */
  productToken?: string;
  /** Retry-After the 429 host sends, in seconds. Default 2. */
  retryAfterSeconds?: number;
  /** 429 answers before the host serves normally. Default 1. */
  tooManyRequestsTimes?: number;
  /** 503 answers the "503 for a while" host gives its root before serving it. Default 3. */
  unavailableTimes?: number;
  /** Delay of every response of the slow host. Default 500 ms. */
  slowDelayMs?: number;
  /** Size of the oversized body. Default 12 MiB (over the crawler's 10 MiB default limit). */
  oversizedBytes?: number;
  /** Whether the oversized body declares its Content-Length. Default true. */
  oversizedDeclaresLength?: boolean;
  /** Decompressed size of the gzip bomb. Default 128 MiB (about 128 KiB on the wire). */
  bombDecompressedBytes?: number;
}

export interface HostileWeb {
  spec: WebSpec;
  hosts: {
    /** robots.txt answers 503: only robots.txt may ever be fetched here. */
    robotsUnreachable: string;
    /** robots.txt answers 404: everything allowed. */
    robotsMissing: string;
    /** robots.txt has a group for our token (and one for another bot that must not apply). */
    productTokenRules: string;
    /** Its root answers 429 with Retry-After, then normally. */
    tooManyRequests: string;
    /** Its root answers 503 a few times, then normally. */
    unavailableForAWhile: string;
    /** Every response (robots.txt included) takes `slowDelayMs`. */
    slow: string;
    /** /big.html streams more than the body limit. */
    oversized: string;
    /** /bomb.html is a gzip bomb. */
    gzipBomb: string;
  };
  /** Every host's root. */
  seeds(port: number): string[];
  /** Pages a correct crawl fetches (the oversized body and the bomb are fetched, then cut off). */
  expectedReachable(port: number): Set<string>;
  /** Pages robots.txt forbids (or makes unreachable): never fetched. */
  disallowed(port: number): Set<string>;
  retryAfterMs: number;
  slowDelayMs: number;
  oversizedBytes: number;
  bombDecompressedBytes: number;
}

function htmlPage(path: string, title: string, links: string[], behavior?: Behavior): PageSpec {
  return { path, body: renderHtmlPage({ title, links: links.map((href) => ({ href, text: href })) }), behavior };
}

/** A small site: a root linking to `paths`, each page plain unless given a behaviour. */
function site(host: string, paths: string[], extra: Partial<HostSpec> = {}, behaviors: Record<string, Behavior> = {}): HostSpec {
  return {
    host,
    pages: [htmlPage('/', `Home of ${host}`, paths, behaviors['/']), ...paths.map((path) => htmlPage(path, `${path} on ${host}`, ['/'], behaviors[path]))],
    ...extra,
  };
}

/** The hostile hosts of issue 4, one behaviour each, for politeness, robots and fetch-limit tests. */
export function hostileWeb(options: HostileWebOptions = {}): HostileWeb {
  const token = options.productToken ?? PRODUCT_TOKEN;
  const retryAfterSeconds = options.retryAfterSeconds ?? 2;
  const slowDelayMs = options.slowDelayMs ?? 500;
  const oversizedBytes = options.oversizedBytes ?? 12 * MIB;
  const bombDecompressedBytes = options.bombDecompressedBytes ?? 128 * MIB;
  for (const [name, value] of Object.entries({ retryAfterSeconds, slowDelayMs, oversizedBytes, bombDecompressedBytes })) {
    if (!Number.isInteger(value) || value < 0) {
      throw new TestWebError('TEST_WEB_INVALID_OPTION', `hostileWeb: ${name} must be a non-negative integer, got ${value}`);
    }
  }
  const [robotsUnreachable, robotsMissing, productTokenRules, tooManyRequests, unavailableForAWhile, slow, oversized, gzipBomb] = loopbackHosts(8, {
    base: options.base ?? '127.40.0.0',
  }) as [string, string, string, string, string, string, string, string];
  const hosts = { robotsUnreachable, robotsMissing, productTokenRules, tooManyRequests, unavailableForAWhile, slow, oversized, gzipBomb };

  const spec: WebSpec = {
    hosts: [
      site(robotsUnreachable, ['/a.html', '/b.html'], { robotsTxt: { status: 503, body: 'Service Unavailable' } }),
      site(robotsMissing, ['/a.html', '/b.html']),
      site(productTokenRules, ['/public.html', '/private/secret.html', '/private/open.html', '/other-only.html'], {
        robotsTxt: `User-agent: OtherBot\nDisallow: /\n\nUser-agent: ${token}\nDisallow: /private/\nAllow: /private/open.html\n`,
      }),
      site(tooManyRequests, ['/a.html', '/b.html'], {}, {
        '/': { kind: 'retry-after', status: 429, retryAfter: String(retryAfterSeconds), times: options.tooManyRequestsTimes ?? 1 },
      }),
      site(unavailableForAWhile, ['/a.html'], {}, { '/': { kind: 'fail-times', status: 503, times: options.unavailableTimes ?? 3 } }),
      site(slow, ['/a.html', '/b.html', '/c.html'], { defaultBehavior: { kind: 'slow', delayMs: slowDelayMs } }),
      site(oversized, ['/big.html', '/ok.html'], {}, {
        '/big.html': { kind: 'oversized', bytes: oversizedBytes, declareLength: options.oversizedDeclaresLength ?? true },
      }),
      site(gzipBomb, ['/bomb.html', '/ok.html'], {}, { '/bomb.html': { kind: 'gzip-bomb', decompressedBytes: bombDecompressedBytes } }),
    ],
  };

  const url = (host: string, path: string, port: number): string => `http://${host}:${port}${path}`;
  const forbidden = new Map<string, Set<string>>([
    [robotsUnreachable, new Set(['/', '/a.html', '/b.html'])],
    [productTokenRules, new Set(['/private/secret.html'])],
  ]);
  return {
    spec,
    hosts,
    seeds: (port) => spec.hosts.map((host) => url(host.host, '/', port)),
    expectedReachable: (port) =>
      new Set(spec.hosts.flatMap((host) => host.pages.filter((p) => !forbidden.get(host.host)?.has(p.path)).map((p) => url(host.host, p.path, port)))),
    disallowed: (port) => new Set([...forbidden].flatMap(([host, paths]) => [...paths].map((path) => url(host, path, port)))),
    retryAfterMs: retryAfterSeconds * 1000,
    slowDelayMs,
    oversizedBytes,
    bombDecompressedBytes,
  };
}
