// A web whose pages change at known Poisson rates, in compressed time, for measuring recrawl
// freshness by the web itself (issue 25): the freshness-gain table of rates scaled so that one "day" of the
// table is `secondsPerDay` real seconds, pages of different sizes (different costs), truthful
// ETag / Last-Modified (the 'changing' behaviour) and, on some hosts, a sitemap with true lastmod.
import { ChangeTimeline } from './changing.js';
import { loopbackHosts } from './loopback.js';
import { hashString, seededRandom } from './random.js';
import type { HostSpec, PageSpec, RequestContext, WebSpec } from './types.js';

const MS_PER_DAY = 86_400_000;

/** A share of pages changing at about one rate, in changes per table day (the table's "day"). */
export interface FreshnessRateClass {
  changesPerDay: number;
  share: number;
}

/**
 * the freshness-gain table rows as a web (the simulation's DEFAULT_RATE_MIX) plus pages that never change: a
 * few change several times per table day, most weekly or slower, some never.
 */
export const FRESHNESS_WEB_RATE_MIX: readonly FreshnessRateClass[] = Object.freeze([
  { changesPerDay: 96, share: 0.05 }, // every 15 minutes
  { changesPerDay: 24, share: 0.05 }, // hourly
  { changesPerDay: 4, share: 0.1 }, // every 6 hours
  { changesPerDay: 1, share: 0.2 }, // daily
  { changesPerDay: 1 / 7, share: 0.2 }, // weekly
  { changesPerDay: 1 / 30, share: 0.15 }, // monthly
  { changesPerDay: 1 / 365, share: 0.1 }, // yearly
  { changesPerDay: 0, share: 0.15 }, // never
]);

export interface FreshnessWebOptions {
  /** Loopback hosts. */
  hosts: number;
  /** Changing pages per host, besides its home page (which links to them and never changes). */
  pagesPerHost: number;
  /** Real seconds one table day lasts: the web's time compression. */
  secondsPerDay: number;
  /** First host address, 127.x.y.z. */
  base: string;
  /** Seeds rates, sizes and change times. Default 1. */
  seed?: number;
  /** Rate classes. Default {@link FRESHNESS_WEB_RATE_MIX}. */
  rateMix?: readonly FreshnessRateClass[];
  /** Every n-th host lists its pages in a sitemap (declared in robots.txt) with true lastmod; 0 for none. Default 3. */
  sitemapEveryNthHost?: number;
  /** Smallest and largest page body, bytes (log-uniform between). Defaults 2_000 and 120_000. */
  minPageBytes?: number;
  maxPageBytes?: number;
}

/** One page of the web and the truth about it. */
export interface FreshnessPage {
  host: string;
  path: string;
  /** Mean changes per real day (the 'changing' behaviour's ratePerDay at time scale 1); 0 never. */
  ratePerDay: number;
  /** Changes per table day (the class it was drawn from, times its spread). */
  changesPerTableDay: number;
  /** Body bytes of a full response (about: the revision line adds a few). */
  bytes: number;
  /** Listed in its host's sitemap. */
  inSitemap: boolean;
  /** Seeds the page's change times and its text. */
  seed: number;
  /** The page's change times, the same ones the server answers from (same seed and rate). */
  timeline: ChangeTimeline;
}

export interface FreshnessWeb {
  spec: WebSpec;
  /** Every page but robots.txt and sitemaps, home pages included (rate 0). */
  pages: FreshnessPage[];
  /** The hosts' home pages: the seeds of the discovery crawl. */
  homePaths: { host: string; path: string }[];
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

export function freshnessWeb(options: FreshnessWebOptions): FreshnessWeb {
  const seed = options.seed ?? 1;
  const mix = options.rateMix ?? FRESHNESS_WEB_RATE_MIX;
  const sitemapEvery = options.sitemapEveryNthHost ?? 3;
  const minBytes = options.minPageBytes ?? 2_000;
  const maxBytes = options.maxPageBytes ?? 120_000;
  const random = seededRandom(seed);
  const totalShare = mix.reduce((sum, c) => sum + c.share, 0);
  const tableDaysPerRealDay = MS_PER_DAY / (options.secondsPerDay * 1000);

  const pages: FreshnessPage[] = [];
  const hosts: HostSpec[] = loopbackHosts(options.hosts, { base: options.base }).map((host, h) => {
    const inSitemap = sitemapEvery > 0 && h % sitemapEvery === 0;
    const hostPages: FreshnessPage[] = [];
    for (let p = 0; p < options.pagesPerHost; p += 1) {
      let pick = random() * totalShare;
      const rateClass = mix.find((c) => (pick -= c.share) < 0) ?? mix[mix.length - 1];
      // A spread of 2x either way, as the simulation's syntheticRates.
      const changesPerTableDay = (rateClass?.changesPerDay ?? 0) * 2 ** (2 * random() - 1);
      const bytes = Math.round(minBytes * (maxBytes / minBytes) ** random());
      const ratePerDay = changesPerTableDay * tableDaysPerRealDay;
      const pageSeed = hashString(`${seed}/${host}/${p}`);
      hostPages.push({ host, path: `/page-${p}`, ratePerDay, changesPerTableDay, bytes, inSitemap, seed: pageSeed, timeline: new ChangeTimeline({ seed: pageSeed, ratePerDay }) });
    }
    const homeSeed = hashString(`${seed}/${host}/home`);
    // The home page is part of the web too: it never changes, and the crawler revisits it like any page.
    pages.push(
      { host, path: '/', ratePerDay: 0, changesPerTableDay: 0, bytes: 1_000, inSitemap: false, seed: homeSeed, timeline: new ChangeTimeline({ seed: homeSeed, ratePerDay: 0 }) },
      ...hostPages,
    );
    const specs: PageSpec[] = [
      // A 'changing' page at rate 0: never changes, and answers with validators like every page here.
      { path: '/', body: pageHtml(`Host ${h}`, 1_000, hostPages.map((page) => page.path), homeSeed), behavior: { kind: 'changing', ratePerDay: 0, seed: homeSeed } },
      ...hostPages.map(
        (page): PageSpec => ({
          path: page.path,
          body: pageHtml(`Page ${page.path} of host ${h}`, page.bytes, [], page.seed),
          behavior: { kind: 'changing', ratePerDay: page.ratePerDay, seed: page.seed },
        }),
      ),
    ];
    if (inSitemap) specs.push({ path: '/sitemap.xml', contentType: 'application/xml', body: (ctx) => sitemapXml(ctx, hostPages) });
    const robots = `User-agent: *\nAllow: /\n${inSitemap ? `Sitemap: http://${host}:{port}/sitemap.xml\n` : ''}`;
    return { host, robotsTxt: robots, pages: specs };
  });
  return { spec: { hosts }, pages, homePaths: hosts.map((host) => ({ host: host.host, path: '/' })) };
}

/** The lastmod of each page's live version: the real time of its latest change (the web's start when none). */
function sitemapXml(ctx: RequestContext, pages: readonly FreshnessPage[]): string {
  const startedAtMs = ctx.nowMs - ctx.elapsedMs;
  const urls = pages.map((page) => {
    const version = page.timeline.versionAt(ctx.elapsedMs);
    const lastmod = new Date(startedAtMs + page.timeline.changedAtMs(version)).toISOString();
    return `<url><loc>http://${ctx.host}:${ctx.port}${page.path}</loc><lastmod>${lastmod}</lastmod></url>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join('')}</urlset>\n`;
}

/**
 * An HTML page of about `bytes` bytes: a title, links, and text in a vocabulary of its own, so no
 * two pages are near-duplicates (which the planner would demote).
 */
function pageHtml(title: string, bytes: number, links: readonly string[], seed: number): string {
  const random = seededRandom(seed);
  const vocabulary = Array.from({ length: 64 }, () => Array.from({ length: 4 + Math.floor(random() * 6) }, () => LETTERS[Math.floor(random() * 26)]).join(''));
  const head = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>`;
  const nav = links.length > 0 ? `<ul>${links.map((href) => `<li><a href="${href}">${href}</a></li>`).join('')}</ul>` : '';
  const tail = '</body></html>';
  const room = Math.max(0, bytes - head.length - nav.length - tail.length);
  const paragraphs: string[] = [];
  for (let used = 0, n = 0; used < room; n += 1) {
    const words = Array.from({ length: 30 }, () => vocabulary[Math.floor(random() * vocabulary.length)]);
    const paragraph = `<p>${n}. ${words.join(' ')}.</p>`;
    paragraphs.push(paragraph);
    used += paragraph.length;
  }
  return head + nav + paragraphs.join('') + tail;
}
