// Real documentation trees served as a web: each folder of HTML (a package's manual as Debian
// installs it) is one host, its files served as they are, so a crawl meets pages nobody here
// wrote: their templates, link forms, assets, indexes and search pages.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { Parser } from 'htmlparser2';
import { TestWebError } from './errors.js';
import { loopbackHosts } from './loopback.js';
import type { HostSpec, PageSpec, WebSpec } from './types.js';

/** One tree: a name for reports and the folder whose files a host serves. */
export interface DocTree {
  name: string;
  /** Folder holding the tree's index.html. */
  dir: string;
}

export interface DocTreesWebOptions {
  trees: readonly DocTree[];
  /** First loopback address considered. Default '127.90.0.0'. */
  base?: string;
  /** Files larger than this are left out (served 404), so a stray archive does not dominate. Default 4 MiB. */
  maxFileBytes?: number;
}

export interface DocTreesWeb {
  spec: WebSpec;
  hosts: readonly string[];
  /** Files served, over all hosts. */
  files: number;
  /** Each host's root. */
  seeds(port: number): string[];
  /** Files reachable from the roots through `<a href>` links to files that exist, on their own host: what a complete crawl fetches. */
  expectedReachable(port: number): Set<string>;
  /** Nothing is disallowed: no tree has a robots.txt. */
  disallowed(port: number): Set<string>;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
};

/** Every regular file under `dir`, as paths relative to it with '/' separators. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) out.push(relative(dir, path).split(sep).join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

/** The URL path a file is served at: each path segment percent-encoded as a browser would send it. */
function urlPathOf(file: string): string {
  return `/${file.split('/').map(encodeURIComponent).join('/')}`;
}

/** The trees' hosts, files and link graph. Throws naming a tree whose folder has no index.html. */
export function docTreesWeb(options: DocTreesWebOptions): DocTreesWeb {
  const maxFileBytes = options.maxFileBytes ?? 4 * 1024 * 1024;
  const hosts = loopbackHosts(options.trees.length, { base: options.base ?? '127.90.0.0' });
  const hostSpecs: HostSpec[] = [];
  /** host -> served path -> links (resolved paths on the same host) of an HTML file. */
  const graph = new Map<string, Map<string, string[]>>();
  let files = 0;
  options.trees.forEach((tree, index) => {
    const host = hosts[index]!;
    let names: string[];
    try {
      names = filesUnder(tree.dir);
    } catch (error) {
      throw new TestWebError('TEST_WEB_INVALID_OPTION', `docTreesWeb: cannot read the ${tree.name} tree at ${tree.dir} (${String(error)}); install its package or pass another folder`);
    }
    if (!names.includes('index.html')) {
      throw new TestWebError('TEST_WEB_INVALID_OPTION', `docTreesWeb: the ${tree.name} tree at ${tree.dir} has no index.html; pass the folder that holds the manual's index`);
    }
    const pages: PageSpec[] = [];
    const links = new Map<string, string[]>();
    for (const name of names) {
      const fullPath = join(tree.dir, name);
      if (statSync(fullPath).size > maxFileBytes) continue;
      const bytes = readFileSync(fullPath);
      const contentType = CONTENT_TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream';
      const path = urlPathOf(name);
      // A function body: served as read, never searched for the web's port placeholder.
      pages.push({ path, contentType, body: () => bytes });
      if (name === 'index.html' || name.endsWith('/index.html')) pages.push({ path: path.slice(0, -'index.html'.length), contentType, body: () => bytes });
      if (contentType.startsWith('text/html')) links.set(path, sameHostLinks(bytes.toString('utf8'), path));
      files++;
    }
    hostSpecs.push({ host, pages });
    graph.set(host, links);
  });

  const seeds = (port: number): string[] => hosts.map((host) => `http://${host}:${port}/`);
  const expectedReachable = (port: number): Set<string> => {
    const reached = new Set<string>();
    hosts.forEach((host, index) => {
      const served = new Set(hostSpecs[index]!.pages.map((page) => page.path));
      const links = graph.get(host)!;
      const queue = ['/'];
      const seen = new Set(queue);
      for (let at = 0; at < queue.length; at++) {
        const path = queue[at]!;
        reached.add(`http://${host}:${port}${path}`);
        const page = path.endsWith('/') ? `${path}index.html` : path;
        for (const target of links.get(page) ?? []) {
          if (seen.has(target) || !served.has(target)) continue;
          seen.add(target);
          queue.push(target);
        }
      }
    });
    return reached;
  };
  return { spec: { hosts: hostSpecs }, hosts, files, seeds, expectedReachable, disallowed: () => new Set() };
}

/** The paths of a page's `<a href>` links that stay on its host, without fragment or query (a streaming pass: no tree). */
function sameHostLinks(html: string, pagePath: string): string[] {
  let base = new URL(`http://doc.invalid${pagePath}`);
  const hrefs: string[] = [];
  const parser = new Parser({
    onopentag(name, attributes) {
      if (name === 'base' && attributes['href'] !== undefined) {
        try {
          base = new URL(attributes['href'], base);
        } catch {
          // An unusable <base> leaves the page's own URL as the base, as a browser does.
        }
      }
      if (name === 'a' && attributes['href'] !== undefined && !(attributes['rel'] ?? '').split(/\s+/).includes('nofollow')) hrefs.push(attributes['href']);
    },
  });
  parser.end(html);
  const out: string[] = [];
  for (const href of hrefs) {
    let url: URL;
    try {
      url = new URL(href, base);
    } catch {
      continue;
    }
    if (url.host === 'doc.invalid' && url.protocol === 'http:') out.push(url.pathname);
  }
  return out;
}
