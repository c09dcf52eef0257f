import { TestWebError } from './errors.js';
import { renderHtmlPage, type PageLink } from './html.js';
import { absoluteUrl } from './link-forms.js';
import { loopbackHosts } from './loopback.js';
import { hashString } from './random.js';
import type { HostSpec, PageSpec, RequestContext, WebSpec } from './types.js';

/** Options for {@link trapWeb}. */
export interface TrapWebOptions {
  /** First address considered. Default '127.30.0.0' (five hosts from 127.30.0.1). */
  base?: string;
  /** Articles on the tracking-parameter host. Default 5. */
  articles?: number;
  /** utm_source values; each article has two variants per source. Default ['newsletter', 'social', 'rss']. */
  trackingSources?: readonly string[];
  /** Items on the session-id host. Default 5. */
  items?: number;
  /** The calendar's entry month. Default { year: 2026, month: 11 }. */
  calendarStart?: { year: number; month: number };
}

/** Which scenario a URL of the trap web belongs to. */
export type TrapFamily = 'real' | 'tracking' | 'session' | 'calendar' | 'disallowed' | 'unknown';

export interface TrapWeb {
  spec: WebSpec;
  hosts: { main: string; tracking: string; session: string; calendar: string; redirects: string };
  /** The main host's root: every scenario is linked from it. */
  seeds(port: number): string[];
  /**
   * Pages a crawl must fetch exactly once: the main host's pages, each trap host's entry page, the
   * articles without tracking parameters, the items without session ids, the calendar's entry month,
   * every hop of the redirect chain and loop, and the redirect into the disallowed path (not its target).
   */
  realPages(port: number): Set<string>;
  /** The redirect target robots.txt disallows: never fetched. */
  disallowed(port: number): Set<string>;
  /** The finite tracking-parameter family (article URLs with utm_ parameters). */
  trackingVariants(port: number): Set<string>;
  /** Classifies a fetched URL (any port) for the budget report. */
  classify(url: string): TrapFamily;
  /** The redirect scenarios as paths on the redirects host, in hop order. */
  redirects: { chain: readonly string[]; loop: readonly string[]; intoDisallowed: readonly string[]; crossHost: string };
}

function page(path: string, title: string, links: PageLink[], extra: Partial<PageSpec> = {}): PageSpec {
  return { path, body: renderHtmlPage({ title, links, paragraphs: [`${title}: a page of the trap web.`] }), ...extra };
}

function redirect(path: string, status: 301 | 302 | 303 | 307 | 308, location: string): PageSpec {
  return { path, behavior: { kind: 'redirect', status, location } };
}

/**
 * The crawler-trap scenarios (docs/design.md, "Crawler traps"), one host each: a tracking-parameter
 * page family, a session-id trap, an infinite calendar, and redirect chain / loop / into-disallowed.
 */
export function trapWeb(options: TrapWebOptions = {}): TrapWeb {
  const articles = options.articles ?? 5;
  const sources = options.trackingSources ?? ['newsletter', 'social', 'rss'];
  const items = options.items ?? 5;
  const start = options.calendarStart ?? { year: 2026, month: 11 };
  if (!Number.isInteger(articles) || articles < 1 || !Number.isInteger(items) || items < 1) {
    throw new TestWebError('TEST_WEB_INVALID_OPTION', `trapWeb: articles and items must be integers >= 1, got ${articles} and ${items}`);
  }
  if (!(start.month >= 1 && start.month <= 12)) {
    throw new TestWebError('TEST_WEB_INVALID_OPTION', `trapWeb: calendarStart.month must be 1..12, got ${start.month}`);
  }
  const [main, tracking, session, calendar, redirects] = loopbackHosts(5, { base: options.base ?? '127.30.0.0' }) as [string, string, string, string, string];
  const hosts = { main, tracking, session, calendar, redirects };
  const startPath = `/calendar/${start.year}/${start.month}`;

  const mainHost: HostSpec = {
    host: main,
    pages: [
      page('/', 'Trap web', [
        { href: '/about.html', text: 'About' },
        { href: 'news/', text: 'News' },
        { href: absoluteUrl(tracking, '/'), text: 'Articles' },
        { href: absoluteUrl(session, '/'), text: 'Shop' },
        { href: absoluteUrl(calendar, '/'), text: 'Calendar' },
        { href: absoluteUrl(redirects, '/'), text: 'Moved pages' },
      ]),
      page('/about.html', 'About', [{ href: '/', text: 'Home' }]),
      page('/news/', 'News', [
        { href: '../', text: 'Home' },
        { href: '../about.html#team', text: 'Team' },
      ]),
    ],
  };

  const variants = (n: number): string[] => sources.flatMap((s) => [`/article/${n}?utm_source=${s}`, `/article/${n}?utm_source=${s}&utm_medium=email`]);
  const trackingPages: PageSpec[] = [
    page(
      '/',
      'Articles',
      Array.from({ length: articles }, (_, i) => [
        { href: `/article/${i + 1}`, text: `Article ${i + 1}` },
        { href: variants(i + 1)[i % (2 * sources.length)] ?? '', text: `Article ${i + 1} (shared)` },
      ]).flat(),
    ),
  ];
  for (let n = 1; n <= articles; n++) {
    const next = (n % articles) + 1;
    // One body for every variant: the parameters do not change the resource, as on a real site.
    const body = renderHtmlPage({
      title: `Article ${n}`,
      canonical: absoluteUrl(tracking, `/article/${n}`),
      paragraphs: [`The text of article ${n}.`],
      links: [`/article/${next}`, ...variants(next)].map((href) => ({ href, text: `Article ${next}` })),
    });
    for (const path of [`/article/${n}`, ...variants(n)]) trackingPages.push({ path, body });
  }

  const itemPattern = /^\/shop\/item\/(\d+)(;jsessionid=[A-Za-z0-9]+)?(\?sid=[A-Za-z0-9]+)?$/;
  const itemBody = (n: number) => (ctx: RequestContext): string => {
    // A fresh session id on every response, so every link is a URL never seen before.
    const sid = (hashString(`${ctx.host}|${ctx.hostRequestIndex}`) >>> 0).toString(36).toUpperCase();
    const links = Array.from({ length: items }, (_, i) => i + 1)
      .filter((m) => m !== n)
      .map((m, i) => ({ href: i % 2 === 0 ? `/shop/item/${m};jsessionid=${sid}` : `/shop/item/${m}?sid=${sid}`, text: `Item ${m}` }));
    return renderHtmlPage({ title: `Item ${n}`, links, paragraphs: [`Item ${n} of the shop.`] });
  };
  const sessionHost: HostSpec = {
    host: session,
    pages: [page('/', 'Shop', Array.from({ length: items }, (_, i) => ({ href: `/shop/item/${i + 1}`, text: `Item ${i + 1}` })))],
    resolve: (target) => {
      const match = itemPattern.exec(target);
      const n = Number(match?.[1]);
      return match && n >= 1 && n <= items ? { path: target, body: itemBody(n) } : undefined;
    },
  };

  const calendarHost: HostSpec = {
    host: calendar,
    pages: [page('/', 'Calendar', [{ href: startPath, text: 'This month' }])],
    resolve: (target) => {
      const match = /^\/calendar\/(\d{1,4})\/(\d{1,2})$/.exec(target);
      const year = Number(match?.[1]);
      const month = Number(match?.[2]);
      if (!match || year < 1 || month < 1 || month > 12 || target !== `/calendar/${year}/${month}`) return undefined;
      const at = (y: number, m: number): string => `/calendar/${y}/${m}`;
      const next = month === 12 ? at(year + 1, 1) : at(year, month + 1);
      const previous = month === 1 ? at(year - 1, 12) : at(year, month - 1);
      return page(target, `${year}-${String(month).padStart(2, '0')}`, [
        { href: next, text: 'Next month' },
        { href: previous, text: 'Previous month' },
        { href: at(year + 1, month), text: 'Next year' },
      ]);
    },
  };

  const chain = ['/chain/a', '/chain/b', '/chain/c', '/chain/d', '/chain/page'];
  const loop = ['/loop/x', '/loop/y'];
  const intoDisallowed = ['/go/private', '/private/secret'];
  const crossHost = '/go/main';
  const redirectHost: HostSpec = {
    host: redirects,
    robotsTxt: 'User-agent: *\nDisallow: /private/\n',
    pages: [
      page('/', 'Moved pages', [
        { href: chain[0] ?? '', text: 'Chain' },
        { href: loop[0] ?? '', text: 'Loop' },
        { href: intoDisallowed[0] ?? '', text: 'Private' },
        { href: crossHost, text: 'Elsewhere' },
      ]),
      redirect('/chain/a', 301, '/chain/b'),
      redirect('/chain/b', 302, 'c'),
      redirect('/chain/c', 307, '/chain/d'),
      redirect('/chain/d', 308, absoluteUrl(redirects, '/chain/page')),
      page('/chain/page', 'End of the chain', [{ href: '/', text: 'Back' }]),
      redirect('/loop/x', 302, '/loop/y'),
      redirect('/loop/y', 302, '/loop/x'),
      redirect('/go/private', 301, '/private/secret'),
      page('/private/secret', 'Secret', []),
      redirect(crossHost, 302, absoluteUrl(main, '/about.html')),
    ],
  };

  const spec: WebSpec = { hosts: [mainHost, { host: tracking, pages: trackingPages }, sessionHost, calendarHost, redirectHost] };

  const real = new Map<string, Set<string>>([
    [main, new Set(['/', '/about.html', '/news/'])],
    [tracking, new Set(['/', ...Array.from({ length: articles }, (_, i) => `/article/${i + 1}`)])],
    [session, new Set(['/', ...Array.from({ length: items }, (_, i) => `/shop/item/${i + 1}`)])],
    [calendar, new Set(['/', startPath])],
    [redirects, new Set(['/', ...chain, ...loop, intoDisallowed[0] ?? '', crossHost])],
  ]);
  const urls = (host: string, paths: Iterable<string>, port: number): string[] => [...paths].map((path) => `http://${host}:${port}${path}`);
  const trackingPaths = Array.from({ length: articles }, (_, i) => variants(i + 1)).flat();

  return {
    spec,
    hosts,
    seeds: (port) => [`http://${main}:${port}/`],
    realPages: (port) => new Set([...real].flatMap(([host, paths]) => urls(host, paths, port))),
    disallowed: (port) => new Set(urls(redirects, ['/private/secret'], port)),
    trackingVariants: (port) => new Set(urls(tracking, trackingPaths, port)),
    redirects: { chain, loop, intoDisallowed, crossHost },
    classify: (url) => {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return 'unknown';
      }
      const target = parsed.pathname + parsed.search;
      if (real.get(parsed.hostname)?.has(target)) return 'real';
      if (parsed.hostname === redirects && target.startsWith('/private/')) return 'disallowed';
      if (parsed.hostname === tracking && trackingPaths.includes(target)) return 'tracking';
      if (parsed.hostname === session && sessionHost.resolve?.(target)) return 'session';
      if (parsed.hostname === calendar && calendarHost.resolve?.(target)) return 'calendar';
      return 'unknown';
    },
  };
}
