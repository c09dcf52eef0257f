// The webs the `cli` scenario crawls: one base shape, and one factor changed at a time (page
// size, links per page, share of cross-host links, host count), so a ratio that moves says which
// shape of web moved it. Each web has its own address range: host workflows of one web never
// meet another web's crawl.
import { existsSync } from 'node:fs';
import type { DocTree, GenerateWebOptions } from '../../test/support/test-web/index.js';
import type { BenchWebOptions } from './web-process.js';

export interface CliWeb {
  /** What the report calls it, and what `--webs` selects. */
  name: string;
  /** The one thing that differs from the base web. */
  varies: string;
  web: BenchWebOptions;
  /**
   * Both crawlers keep to the seeds' hosts: a web of real pages links to hosts this machine cannot
   * reach (no internet), which would cost each crawler its DNS failures' retries, not the web's pages.
   */
  seedHostsOnly?: boolean;
  /**
   * Our CLI alone, one cold run: a web too large to crawl several times in one invocation, whose
   * question is whether the crawl completes in bounded memory, not a ratio.
   */
  oursOnly?: boolean;
}

/**
 * Manuals Debian installs as HTML (`apt-get install postgresql-doc-15 python3.11-doc`): real
 * documentation trees, written by others, each served as one host. (Not nodejs-doc: installing
 * it removes a Node.js that did not come from Debian.)
 */
export const DOC_TREES: readonly DocTree[] = [
  { name: 'PostgreSQL 15 manual', dir: '/usr/share/doc/postgresql-doc-15/html' },
  { name: 'Python 3.11 documentation', dir: '/usr/share/doc/python3.11/html' },
];

export const DOC_TREE_PACKAGES = 'postgresql-doc-15 python3.11-doc';

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

/** What the report says a web is: hosts x pages for a generated one, the trees for documentation. */
export function describeWeb(web: BenchWebOptions): string {
  return 'docTrees' in web ? web.docTrees.trees.map((tree) => tree.name).join(', ') : `${web.hosts} hosts x ${web.pagesPerHost} pages`;
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
  // A broad crawl's first pass: every host a seed of one page. Run on its own (`--webs hosts-100000`).
  { ...varied('hosts-100000', '100,000 hosts x 1 page of 2 KB, ours alone', '127.100.0.1', { hosts: 100_000, pagesPerHost: 1, linksPerPage: 5, pageBytes: 2 * 1024 }), oursOnly: true },
  { name: 'docs', varies: 'two real manuals (PostgreSQL, Python), a host each', web: { docTrees: { trees: DOC_TREES, base: '127.84.0.1' } }, seedHostsOnly: true },
];

/** Whether every documentation tree the docs web serves is installed. */
export function docTreesInstalled(): boolean {
  return DOC_TREES.every((tree) => existsSync(`${tree.dir}/index.html`));
}

/** The webs `--webs` names; 'all' leaves out the docs web when its manuals are not installed (and says so through `log`). */
export function cliWebsNamed(names: string | undefined, log: (line: string) => void = () => undefined): CliWeb[] {
  if (names === undefined || names === 'all') {
    const webs = CLI_WEBS.filter((web) => web.oursOnly !== true);
    if (docTreesInstalled()) return webs;
    log(`cli: the docs web is left out: its manuals are not installed (apt-get install -y ${DOC_TREE_PACKAGES})`);
    return webs.filter((web) => web.name !== 'docs');
  }
  const wanted = names.split(',').map((name) => name.trim());
  const unknown = wanted.filter((name) => !CLI_WEBS.some((web) => web.name === name));
  if (unknown.length > 0) {
    throw new Error(`--webs: unknown web ${unknown.join(', ')}; the webs are ${CLI_WEBS.map((web) => web.name).join(', ')} (or all)`);
  }
  if (wanted.includes('docs') && !docTreesInstalled()) throw new Error(`--webs docs: the manuals it serves are not installed; run apt-get install -y ${DOC_TREE_PACKAGES}`);
  return CLI_WEBS.filter((web) => wanted.includes(web.name));
}
