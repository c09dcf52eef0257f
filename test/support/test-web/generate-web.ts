import { TestWebError } from './errors.js';
import { renderHtmlPage, type PageLink } from './html.js';
import { absoluteUrl, CROSS_HOST_FORMS, hrefFor, SAME_HOST_FORMS, type LinkSource } from './link-forms.js';
import { loopbackHosts } from './loopback.js';
import { PAGE_TEXT_SHAPES, pageText, type PageTextShape } from './page-text.js';
import { pick, randomInt, seededRandom } from './random.js';
import { PORT_PLACEHOLDER, type HostSpec, type WebSpec } from './types.js';

/** The product token robots.txt groups in generated webs name (the crawler's User-Agent token). */
export const PRODUCT_TOKEN = 'DurableCrawler';

/** Options for {@link generateWeb}. */
export interface GenerateWebOptions {
  /** Number of hosts, consecutive loopback addresses from `base`. */
  hosts: number;
  /** Pages per host including '/'; on hosts whose robots.txt disallows, about 15% sit under /private/. At least 1. */
  pagesPerHost: number;
  /** Random links per page, on top of the spanning-tree links that make every page reachable. */
  linksPerPage: number;
  /** Share of the random links, 0..1, that point to another host. */
  crossHostLinkRatio: number;
  /** Same seed, same web, byte for byte. */
  seed: number;
  /** First address considered. Default '127.20.0.0'. */
  base?: string;
  /** 'none': every robots.txt is 404. Default 'some-disallow': a mix of robots files (see RobotsKind). */
  robots?: 'none' | 'some-disallow';
  /** Minimum page size in bytes (padding paragraphs). Default 0: pages are about 1-2 KiB. */
  pageBytes?: number;
  /** The first this-many hosts' roots are the seeds. Default 1 (everything is found by following links). */
  seedHosts?: number;
  /** Extra pages whose bodies are byte-identical copies of other pages, for content dedup. Default 0. */
  duplicatePages?: number;
  /** Token the robots groups name. Default {@link PRODUCT_TOKEN}. */
  productToken?: string;
  /** Every response, robots.txt's included, waits this long before its headers, as a distant or busy server does. Default 0. */
  latencyMs?: number;
  /** The words pages carry (page-text.ts). Default 'small-vocabulary'. */
  text?: PageTextShape;
}

/**
 * What a host's robots.txt says. 'missing': 404. 'empty': 200 with no rules. 'star-disallow':
 * `*` disallows /private/. 'token-disallow': `*` allows all, our token's group disallows /private/
 * (a crawler that falls back to `*` fetches them). 'other-bot': another bot is disallowed
 * everything, `*` disallows /private/ (a crawler that merges groups fetches nothing).
 */
export type RobotsKind = 'missing' | 'empty' | 'star-disallow' | 'token-disallow' | 'other-bot';

const ROBOTS_KINDS: readonly RobotsKind[] = ['star-disallow', 'missing', 'token-disallow', 'empty', 'other-bot'];

export interface GeneratedPage {
  host: string;
  /** Path + query as served. */
  path: string;
  /** False for pages robots.txt disallows to our token. */
  allowed: boolean;
  /** `<meta name=robots>` content, if any ('nofollow' pages' links are not followed). */
  metaRobots?: string;
  /** For copies: the path (same host) of the page whose body this one repeats. */
  mirrorOf?: string;
}

export interface GeneratedWeb {
  spec: WebSpec;
  hosts: readonly string[];
  pages: readonly GeneratedPage[];
  robotsByHost: ReadonlyMap<string, RobotsKind>;
  /** Seed URLs on a web listening on `port`. */
  seeds(port: number): string[];
  /**
   * Every allowed page: reachable from the seeds through followed links (no rel=nofollow, no
   * meta-nofollow source) without passing a disallowed page. A crawl must fetch each exactly once.
   */
  expectedReachable(port: number): Set<string>;
  /** Pages robots.txt disallows; each is linked from some allowed page and must never be fetched. */
  disallowed(port: number): Set<string>;
  /** [copy, original] URL pairs serving byte-identical bodies. */
  duplicates(port: number): Array<[string, string]>;
}

interface Node {
  id: number;
  host: string;
  hostIndex: number;
  path: string;
  title: string;
  allowed: boolean;
  followable: boolean;
  metaRobots?: string;
  baseHref?: string;
  canonical: boolean;
  links: { target: Node; nofollow: boolean }[];
  mirrorOf?: Node;
}

const NOISE_LINKS: readonly PageLink[] = [
  { href: 'mailto:webmaster@example.invalid', text: 'Write to us' },
  { href: 'javascript:void(0)', text: 'Open menu' },
  { href: 'tel:+1-555-0100', text: 'Call us' },
  { href: '#top', text: 'Back to top' },
];

function pagePath(k: number): string {
  const d = k % 3;
  switch (k % 6) {
    case 0:
      return `/s${d}/p${k}.html`;
    case 1:
      return `/s${d}/deep/p${k}/`;
    case 2:
      return `/s${d}/p${k}?b=1`;
    case 3:
      return `/Docs/P${k}.html`;
    case 4:
      return `/q/item?id=${k}`;
    default:
      return `/q/flag${k}?flag`;
  }
}

/** A copy's path in the same directory as the original, so its relative links resolve the same. */
function mirrorPath(path: string): string {
  if (path.includes('?')) return `${path}&copy=1`;
  if (path.endsWith('/')) return `${path}copy.html`;
  return path.replace(/(\.html)?$/, '-copy$1');
}

function robotsTxt(kind: RobotsKind, token: string): HostSpec['robotsTxt'] {
  switch (kind) {
    case 'missing':
      return undefined;
    case 'empty':
      return '';
    case 'star-disallow':
      return '# generated test web\nUser-agent: *\nDisallow: /private/\n';
    case 'token-disallow':
      return `User-agent: *\nAllow: /\n\nUser-agent: ${token}\nDisallow: /private/\n`;
    case 'other-bot':
      return 'User-agent: OtherBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private/\n';
  }
}

function validate(options: GenerateWebOptions): void {
  const positive = (name: string, value: number, min: number): void => {
    if (!Number.isInteger(value) || value < min) {
      throw new TestWebError('TEST_WEB_INVALID_OPTION', `generateWeb: ${name} must be an integer >= ${min}, got ${value}`);
    }
  };
  positive('hosts', options.hosts, 1);
  positive('pagesPerHost', options.pagesPerHost, 1);
  positive('linksPerPage', options.linksPerPage, 0);
  positive('seedHosts', options.seedHosts ?? 1, 1);
  positive('duplicatePages', options.duplicatePages ?? 0, 0);
  positive('latencyMs', options.latencyMs ?? 0, 0);
  if (options.text !== undefined && !PAGE_TEXT_SHAPES.includes(options.text)) {
    throw new TestWebError('TEST_WEB_INVALID_OPTION', `generateWeb: text must be one of ${PAGE_TEXT_SHAPES.join(', ')}, got ${String(options.text)}`);
  }
  if (!(options.crossHostLinkRatio >= 0 && options.crossHostLinkRatio <= 1)) {
    throw new TestWebError('TEST_WEB_INVALID_OPTION', `generateWeb: crossHostLinkRatio must be within 0..1, got ${options.crossHostLinkRatio}`);
  }
}

/**
 * A deterministic web of interlinked hosts with robots rules, every page reachable from the seeds,
 * links written every way a crawler must understand (relative, absolute, protocol-relative,
 * `<base href>`, fragments, nofollow, non-HTTP schemes), and the exact sets a crawl must produce.
 */
export function generateWeb(options: GenerateWebOptions): GeneratedWeb {
  validate(options);
  const random = seededRandom(options.seed);
  const token = options.productToken ?? PRODUCT_TOKEN;
  const hosts = loopbackHosts(options.hosts, { base: options.base ?? '127.20.0.0' });
  const robotsOffset = randomInt(random, ROBOTS_KINDS.length);
  const robotsByHost = new Map<string, RobotsKind>(
    hosts.map((host, i) => [host, options.robots === 'none' ? 'missing' : (ROBOTS_KINDS[(i + robotsOffset) % ROBOTS_KINDS.length] ?? 'missing')]),
  );

  const nodes: Node[] = [];
  const nodesByHost: Node[][] = [];
  const followableByHost: Node[][] = [];
  const newNode = (host: string, hostIndex: number, path: string, title: string, allowed: boolean): Node => {
    const node: Node = { id: nodes.length, host, hostIndex, path, title, allowed, followable: allowed, canonical: false, links: [] };
    nodes.push(node);
    return node;
  };

  hosts.forEach((host, hostIndex) => {
    const kind = robotsByHost.get(host);
    const disallows = kind === 'star-disallow' || kind === 'token-disallow' || kind === 'other-bot';
    const privateCount = disallows && options.pagesPerHost >= 3 ? Math.max(1, Math.round(options.pagesPerHost * 0.15)) : 0;
    const hostNodes: Node[] = [];
    const followable: Node[] = [];
    for (let k = 0; k < options.pagesPerHost - privateCount; k++) {
      const node = newNode(host, hostIndex, k === 0 ? '/' : pagePath(k), k === 0 ? `Home of ${host}` : `Page ${k} of ${host}`, true);
      if (k > 0) {
        const roll = random();
        if (roll < 0.08) node.metaRobots = 'nofollow';
        else if (roll < 0.16) node.metaRobots = 'noindex';
        if (random() < 0.1) node.baseHref = random() < 0.5 ? '/s1/deep/' : absoluteUrl(host, '/s2/');
        // Spanning tree inside the host: the parent is an earlier page whose links are followed.
        pick(random, followable).links.push({ target: node, nofollow: false });
      }
      node.followable = node.metaRobots !== 'nofollow';
      node.canonical = random() < 0.3;
      if (node.followable) followable.push(node);
      hostNodes.push(node);
    }
    for (let j = 1; j <= privateCount; j++) {
      const node = newNode(host, hostIndex, `/private/p${j}.html`, `Private ${j} of ${host}`, false);
      pick(random, followable).links.push({ target: node, nofollow: false });
      hostNodes.push(node);
    }
    if (hostIndex > 0) {
      // Spanning tree across hosts: each root is linked from a page of an earlier host.
      const earlier = followableByHost[randomInt(random, hostIndex)] ?? [];
      pick(random, earlier).links.push({ target: hostNodes[0] as Node, nofollow: false });
    }
    nodesByHost.push(hostNodes);
    followableByHost.push(followable);
  });

  for (const node of [...nodes]) {
    for (let i = 0; i < options.linksPerPage; i++) {
      const crossHost = hosts.length > 1 && random() < options.crossHostLinkRatio;
      const hostIndex = crossHost ? (node.hostIndex + 1 + randomInt(random, hosts.length - 1)) % hosts.length : node.hostIndex;
      const target = pick(random, nodesByHost[hostIndex] ?? []);
      node.links.push({ target, nofollow: random() < 0.1 });
    }
  }

  const mirrors: Node[] = [];
  const candidates = nodes.filter((node) => node.allowed && node.followable && node.path !== '/');
  for (let i = 0; i < (options.duplicatePages ?? 0) && candidates.length > 0; i++) {
    const original = candidates.splice(randomInt(random, candidates.length), 1)[0] as Node;
    const copy = newNode(original.host, original.hostIndex, mirrorPath(original.path), original.title, true);
    Object.assign(copy, { metaRobots: original.metaRobots, baseHref: original.baseHref, mirrorOf: original });
    original.links.push({ target: copy, nofollow: false });
    mirrors.push(copy);
  }

  const bodies = new Map<Node, string>();
  for (const node of nodes) {
    if (!node.mirrorOf) bodies.set(node, renderNode(node, random, options.pageBytes ?? 0, options.text ?? 'small-vocabulary', options.seed));
  }
  for (const copy of mirrors) bodies.set(copy, bodies.get(copy.mirrorOf as Node) ?? '');

  const latency = options.latencyMs ? { defaultBehavior: { kind: 'slow' as const, delayMs: options.latencyMs } } : {};
  const hostSpecs: HostSpec[] = hosts.map((host) => ({ host, robotsTxt: robotsTxt(robotsByHost.get(host) ?? 'missing', token), pages: [], ...latency }));
  for (const node of nodes) hostSpecs[node.hostIndex]?.pages.push({ path: node.path, body: bodies.get(node) ?? '' });
  const spec: WebSpec = { hosts: hostSpecs };

  const seedNodes = hosts.slice(0, options.seedHosts ?? 1).map((_, i) => nodesByHost[i]?.[0] as Node);
  const reachable = reachableFrom(seedNodes);
  const unreachable = nodes.filter((node) => node.allowed && !reachable.has(node));
  if (unreachable.length > 0) throw new Error(`generateWeb bug: ${unreachable.length} allowed pages unreachable, first ${unreachable[0]?.host}${unreachable[0]?.path}`);

  const url = (node: Node, port: number): string => `http://${node.host}:${port}${node.path}`;
  return {
    spec,
    hosts,
    pages: nodes.map((node) => ({ host: node.host, path: node.path, allowed: node.allowed, metaRobots: node.metaRobots, mirrorOf: node.mirrorOf?.path })),
    robotsByHost,
    seeds: (port) => seedNodes.map((node) => url(node, port)),
    expectedReachable: (port) => new Set([...reachable].map((node) => url(node, port))),
    disallowed: (port) => new Set(nodes.filter((node) => !node.allowed).map((node) => url(node, port))),
    duplicates: (port) => mirrors.map((copy) => [url(copy, port), url(copy.mirrorOf as Node, port)]),
  };
}

/** Breadth-first over followed links, never entering disallowed pages. */
function reachableFrom(seeds: Node[]): Set<Node> {
  const seen = new Set<Node>(seeds);
  const queue = [...seeds];
  for (let at = 0, node = queue[0]; node; node = queue[++at]) {
    if (!node.followable) continue;
    for (const link of node.links) {
      if (link.nofollow || !link.target.allowed || seen.has(link.target)) continue;
      seen.add(link.target);
      queue.push(link.target);
    }
  }
  return seen;
}

function renderNode(node: Node, random: () => number, minBytes: number, shape: PageTextShape, webSeed: number): string {
  const source: LinkSource = { host: node.host, path: node.path, baseHref: node.baseHref };
  const links: PageLink[] = node.links.map(({ target, nofollow }) => {
    const form = pick(random, target.host === node.host ? SAME_HOST_FORMS : CROSS_HOST_FORMS);
    const fragment = random() < 0.2 ? `#section-${randomInt(random, 5)}` : '';
    const href = hrefFor(form, source, target.host, target.path) + fragment;
    checkResolves(href, node, target);
    return { href, text: target.title, rel: nofollow ? 'nofollow' : undefined };
  });
  for (const noise of NOISE_LINKS) {
    // Under <base href>, '#top' resolves against the base, a URL that is not a page: leave it out.
    if (noise.href.startsWith('#') && node.baseHref !== undefined) continue;
    if (random() < 0.5) links.splice(randomInt(random, links.length + 1), 0, noise);
  }
  const text = pageText(shape, random, webSeed, node.host, node.path, minBytes > 0);
  return renderHtmlPage({
    title: node.title,
    links,
    paragraphs: text.paragraphs,
    baseHref: node.baseHref,
    metaRobots: node.metaRobots,
    canonical: node.canonical ? absoluteUrl(node.host, node.path) : undefined,
    minBytes,
    filler: text.filler,
  });
}

/** Guards the generator itself: every href must resolve (WHATWG URL) to exactly its target. */
function checkResolves(href: string, source: Node, target: Node): void {
  const fill = (text: string): string => text.replaceAll(PORT_PLACEHOLDER, '8080');
  const base = fill(source.baseHref !== undefined ? new URL(fill(source.baseHref), `http://${source.host}:8080${source.path}`).href : `http://${source.host}:8080${source.path}`);
  const resolved = new URL(fill(href), base);
  resolved.hash = '';
  const expected = `http://${target.host}:8080${target.path}`;
  if (resolved.href !== expected) throw new Error(`generateWeb bug: "${href}" on ${base} resolves to ${resolved.href}, not ${expected}`);
}
