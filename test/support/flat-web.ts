// A web of hosts with numbered pages and no links: every URL a test wants fetched is a seed, so the
// expected set is exact and the frontier holds only what the test put there.
import { renderHtmlPage } from './test-web/index.js';
import { loopbackHosts } from './test-web/index.js';
import type { HostSpec } from './test-web/index.js';

export interface FlatWebOptions {
  /** First loopback address; give every test file its own range. */
  base: string;
  hosts: number;
  pagesPerHost: number;
}

export interface FlatWeb {
  hosts: string[];
  specs: HostSpec[];
  /** Every page of `host` on a web listening on `port`. */
  pageUrls(port: number, host: string): string[];
  allPageUrls(port: number): string[];
}

export const flatPagePath = (index: number): string => `/p/${index}.html`;

export function flatWeb(options: FlatWebOptions): FlatWeb {
  const hosts = loopbackHosts(options.hosts, { base: options.base });
  const paths = Array.from({ length: options.pagesPerHost }, (_, i) => flatPagePath(i));
  const specs: HostSpec[] = hosts.map((host) => ({
    host,
    robotsTxt: 'User-agent: *\nDisallow: /private/\n',
    pages: paths.map((path) => ({ path, body: renderHtmlPage({ title: `${host}${path}`, links: [], paragraphs: [`Page ${path} of ${host}.`] }) })),
  }));
  const pageUrls = (port: number, host: string): string[] => paths.map((path) => `http://${host}:${port}${path}`);
  return { hosts, specs, pageUrls, allPageUrls: (port) => hosts.flatMap((host) => pageUrls(port, host)) };
}
