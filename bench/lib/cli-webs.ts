// The webs the `cli` scenario crawls: one base shape, and one factor changed at a time (page
// size, links per page, share of cross-host links, host count), so a ratio that moves says which
// shape of web moved it. Each web has its own address range: host workflows of one web never
// meet another web's crawl.
import type { GenerateWebOptions } from '../../test/support/test-web/index.js';

export interface CliWeb {
  /** What the report calls it, and what `--webs` selects. */
  name: string;
  /** The one thing that differs from the base web. */
  varies: string;
  web: GenerateWebOptions;
}

/** 200 hosts x 25 pages of 12 KB, 15 random links a page (a third to other hosts), robots.txt rules, every root a seed. */
const BASE: GenerateWebOptions = {
  hosts: 200,
  pagesPerHost: 25,
  linksPerPage: 15,
  crossHostLinkRatio: 0.3,
  pageBytes: 12 * 1024,
  seed: 24,
  base: '127.70.0.1',
  seedHosts: 200,
};

function varied(name: string, varies: string, base: string, change: Partial<GenerateWebOptions>): CliWeb {
  const web = { ...BASE, ...change, base };
  return { name, varies, web: { ...web, seedHosts: change.seedHosts ?? web.hosts } };
}

export const CLI_WEBS: readonly CliWeb[] = [
  { name: 'base', varies: '200 x 25, 12 KB, 15 links, 30% cross-host', web: BASE },
  varied('pages-2kb', 'pages of 2 KB', '127.71.0.1', { pageBytes: 2 * 1024 }),
  varied('pages-100kb', 'pages of 100 KB', '127.72.0.1', { pageBytes: 100 * 1024 }),
  varied('links-5', '5 links a page', '127.73.0.1', { linksPerPage: 5 }),
  varied('links-50', '50 links a page', '127.74.0.1', { linksPerPage: 50 }),
  varied('cross-0', 'no cross-host links', '127.75.0.1', { crossHostLinkRatio: 0 }),
  varied('cross-80', '80% cross-host links', '127.76.0.1', { crossHostLinkRatio: 0.8 }),
  varied('hosts-1000', '1,000 hosts x 5 pages', '127.77.0.1', { hosts: 1000, pagesPerHost: 5 }),
  // As servers far away or busy answer: each response 120 ms. Mercator's rule (our politeness,
  // not Crawlee's) then waits 10 times that, 1.2 s, between two requests to a host.
  varied('latency-120', 'every response takes 120 ms', '127.79.0.1', { latencyMs: 120 }),
  // As a user starts a crawl: a few seeds, every other host found by following links.
  varied('seeds-3', '3 seeds, the rest discovered', '127.81.0.1', { seedHosts: 3 }),
  // The same web twice but for its text: every page's own words from a large vocabulary, or most
  // of each page one template passage shared by the whole web (near-duplicate lookups meet many
  // pages alike). The pair's ratio to each other says what alike pages cost.
  varied('text-distinct', 'pages of distinct text', '127.82.0.1', { text: 'distinct' }),
  varied('text-templated', 'pages sharing a template passage', '127.83.0.1', { text: 'templated' }),
  varied('hosts-10000', '10,000 hosts x 2 pages', '127.80.0.1', { hosts: 10_000, pagesPerHost: 2, linksPerPage: 5 }),
];

export function cliWebsNamed(names: string | undefined): CliWeb[] {
  if (names === undefined || names === 'all') return [...CLI_WEBS];
  const wanted = names.split(',').map((name) => name.trim());
  const unknown = wanted.filter((name) => !CLI_WEBS.some((web) => web.name === name));
  if (unknown.length > 0) {
    throw new Error(`--webs: unknown web ${unknown.join(', ')}; the webs are ${CLI_WEBS.map((web) => web.name).join(', ')} (or all)`);
  }
  return CLI_WEBS.filter((web) => wanted.includes(web.name));
}
