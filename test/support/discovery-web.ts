// A web of 21 hosts for discovery (issue: "discover what sites tell us"): twelve sites whose pages
// are reachable by links, only by their sitemaps (declared in robots.txt, some through an index
// with a plain and a gzipped child, others at the default /sitemap.xml) or only by their RSS or
// Atom feed; rel=canonical hints of every kind (same content, different content, cross-host, a
// chain, a redirect, one in a Link header); and a link farm of eight hosts pointing at one site's
// deep pages. Each page is tagged with how it can be found, so coverage is measured by class.
import { gzipSync } from 'node:zlib';
import { loopbackHosts, renderHtmlPage, type HostSpec, type PageSpec } from './test-web/index.js';

/** How a page can be found: its only way in, for coverage by source. */
export type DiscoveryClass = 'seed' | 'link' | 'sitemap' | 'feed' | 'canonical' | 'farm';

export interface DiscoveryWeb {
  hosts: string[];
  /** The twelve sites (seeds). */
  sites: string[];
  /** The eight link-farm hosts. */
  farm: string[];
  /** The site whose home page links /a1-/a5 and whose /f1-/f5 the farm points at (Crawl-delay 1 s). */
  farmed: string;
  specs: HostSpec[];
  seeds(port: number): string[];
  /** Every page with its class, `host path`. */
  pages: Map<string, DiscoveryClass>;
}

const SITES = 12;
const FARM_HOSTS = 8;
const FARM_TARGETS = ['/f1', '/f2', '/f3', '/f4', '/f5'];
const HOME_LINKED = ['/a1', '/a2', '/a3', '/a4', '/a5'];

const words = (seed: string): string[] => Array.from({ length: 60 }, (_, i) => `${seed}${(i * 7) % 23} topic${i % 11} story${seed.length + i}`);

/** A page whose text is its own (`text` names it), with links, extra <head> markup and headers. */
function page(path: string, text: string, options: { links?: string[]; head?: string; headers?: Record<string, string> } = {}): PageSpec {
  const html = renderHtmlPage({ title: text, links: (options.links ?? []).map((href) => ({ href, text: href })), paragraphs: words(text) });
  return { path, body: options.head ? html.replace('</head>', `${options.head}</head>`) : html, ...(options.headers ? { headers: options.headers } : {}) };
}

const urlset = (host: string, paths: readonly string[], port: number, lastmod?: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths
    .map((p) => `<url><loc>http://${host}:${port}${p}</loc>${lastmod ? `<lastmod>${lastmod}</lastmod>` : ''}</url>`)
    .join('')}</urlset>`;

export function discoveryWeb(base = '127.143.0.1'): DiscoveryWeb {
  const hosts = loopbackHosts(SITES + FARM_HOSTS + 1, { base });
  const sites = hosts.slice(0, SITES);
  const farm = hosts.slice(SITES, SITES + FARM_HOSTS);
  const spare = hosts[SITES + FARM_HOSTS]!;
  const farmed = sites[2]!;
  const pages = new Map<string, DiscoveryClass>();
  const tag = (host: string, path: string, kind: DiscoveryClass): void => void pages.set(`${host} ${path}`, kind);

  const specs: HostSpec[] = sites.map((host, index) => {
    const declared = index % 2 === 0;
    const rss = index % 2 === 0;
    const own = (path: string) => `http://${host}:{port}${path}`;
    const homeLinks = ['/l1', '/l2', '/l3', ...(host === farmed ? [...HOME_LINKED, '/friends'] : [])];
    const list: PageSpec[] = [
      page('/', `home of site ${index}`, { links: homeLinks, head: `<link rel="alternate" type="application/${rss ? 'rss' : 'atom'}+xml" href="/feed.xml">` }),
      ...['/l2', '/l3'].map((path) => page(path, `linked ${path} of site ${index}`)),
      ...['/s1', '/s2', '/s3'].map((path) => page(path, `listed ${path} of site ${index}`)),
      page('/n1', `news item of site ${index}`),
      page('/private/secret', `secret of site ${index}`),
    ];
    tag(host, '/', 'seed');
    for (const path of ['/l1', '/l2', '/l3']) tag(host, path, 'link');
    for (const path of ['/s1', '/s2', '/s3']) tag(host, path, 'sitemap');
    tag(host, '/n1', 'feed');
    // /l1 is a page of its own unless a canonical case below replaces it.
    if (index > 1) list.push(page('/l1', `linked /l1 of site ${index}`));
    if (host === farmed) {
      for (const path of HOME_LINKED) {
        list.push(page(path, `home-linked ${path} of the farmed site`));
        tag(host, path, 'link');
      }
      list.push(page('/friends', 'friends of the farmed site', { links: farm.map((f) => `http://${f}:{port}/`) }));
      tag(host, '/friends', 'link');
      for (const path of FARM_TARGETS) {
        list.push(page(path, `farm target ${path}`));
        tag(host, path, 'farm');
      }
    }
    const sitemapPaths = ['/s1', '/s2', '/s3'];
    if (declared) {
      // An index with a plain and a gzipped child, both under /maps/ (the index speaks for the origin).
      list.push(
        { path: '/maps/index.xml', contentType: 'application/xml', body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${own('/maps/a.xml')}</loc></sitemap><sitemap><loc>${own('/maps/b.xml.gz')}</loc></sitemap></sitemapindex>` },
        { path: '/maps/a.xml', contentType: 'application/xml', body: (ctx) => urlset(host, sitemapPaths.slice(0, 2), ctx.port, '2026-01-01') },
        { path: '/maps/b.xml.gz', contentType: 'application/gzip', body: (ctx) => gzipSync(urlset(host, sitemapPaths.slice(2), ctx.port)) },
        { path: '/private/sitemap.xml', contentType: 'application/xml', body: (ctx) => urlset(host, ['/private/secret'], ctx.port) },
      );
    } else {
      list.push({ path: '/sitemap.xml', contentType: 'application/xml', body: (ctx) => urlset(host, sitemapPaths, ctx.port) });
    }
    list.push({
      path: '/feed.xml',
      contentType: rss ? 'application/rss+xml' : 'application/atom+xml',
      body: (ctx) =>
        rss
          ? `<?xml version="1.0"?><rss version="2.0"><channel><title>site ${index}</title><item><title>n1</title><link>http://${host}:${ctx.port}/n1</link></item></channel></rss>`
          : `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>site ${index}</title><entry><title>n1</title><link href="http://${host}:${ctx.port}/n1"/><updated>2026-11-30T00:00:00Z</updated></entry></feed>`,
    });
    const robotsLines = ['User-agent: *', 'Disallow: /private/', ...(host === farmed ? ['Crawl-delay: 1'] : [])];
    if (declared) robotsLines.push(`Sitemap: ${own('/maps/index.xml')}`, `Sitemap: ${own('/private/sitemap.xml')}`);
    return { host, robotsTxt: `${robotsLines.join('\n')}\n`, pages: list };
  });

  // Canonical hints. Site 0: same content (obeyed), different content and cross-host (evidence).
  const [s0, s1] = [specs[0]!, specs[1]!];
  s0.pages.push(
    page('/l1', 'the same words on two URLs', { head: '<link rel="canonical" href="/c-target">' }),
    page('/c-target', 'the same words on two URLs'),
    page('/c-other', 'quite another page, about trains'),
  );
  // /l2 and /l3 of site 0 carry hints too: replace them.
  s0.pages = s0.pages.filter((p) => p.path !== '/l2' && p.path !== '/l3');
  s0.pages.push(
    page('/l2', 'a page that points at different content', { head: '<link rel="canonical" href="/c-other">' }),
    page('/l3', 'a page that points at another host', { headers: { link: `<http://${sites[1]}:{port}/l3>; rel="canonical"` } }),
  );
  tag(sites[0]!, '/c-target', 'canonical');
  tag(sites[0]!, '/c-other', 'canonical');
  // Site 1: a chain (/l1 -> /mid -> /end, same content) and a hint to a redirect.
  s1.pages.push(
    page('/l1', 'one text along a chain', { head: '<link rel="canonical" href="/mid">' }),
    page('/mid', 'one text along a chain', { head: '<link rel="canonical" href="/end">' }),
    page('/end', 'one text along a chain'),
  );
  s1.pages = s1.pages.filter((p) => p.path !== '/l2');
  s1.pages.push(page('/l2', 'a page that points at a redirect', { head: '<link rel="canonical" href="/moved">' }), { path: '/moved', behavior: { kind: 'redirect', status: 301, location: '/l2' } });
  for (const path of ['/mid', '/end']) tag(sites[1]!, path, 'canonical');

  // The farm: each host's home links to the farmed site's deep pages.
  for (const host of farm) {
    specs.push({ host, robotsTxt: 'User-agent: *\nAllow: /\n', pages: [page('/', `farm host ${host}`, { links: FARM_TARGETS.map((path) => `http://${farmed}:{port}${path}`) })] });
    tag(host, '/', 'link');
  }
  specs.push({ host: spare, robotsTxt: 'User-agent: *\nAllow: /\n', pages: [page('/', 'a host nothing links to')] });

  return { hosts, sites, farm, farmed, specs, seeds: (port) => sites.map((host) => `http://${host}:${port}/`), pages };
}

/** Pages of each class fetched (from a request log), against how many there are. */
export function coverageByClass(web: DiscoveryWeb, fetched: Iterable<{ host: string; path: string }>): Record<DiscoveryClass, { fetched: number; total: number }> {
  const seen = new Set<string>();
  for (const entry of fetched) seen.add(`${entry.host} ${entry.path}`);
  const coverage = {} as Record<DiscoveryClass, { fetched: number; total: number }>;
  for (const [key, kind] of web.pages) {
    const row = (coverage[kind] ??= { fetched: 0, total: 0 });
    row.total += 1;
    if (seen.has(key)) row.fetched += 1;
  }
  return coverage;
}
