import { describe, expect, it } from 'vitest';
import { BloomFilter } from '../../../../src/domain/frontier/index.js';
import {
  DEPTH_REFUSAL,
  decideRegistrations,
  depthContentKey,
  pathStatKey,
  prepareRegistrations,
  priorityOfDiscovery,
  type RegistrationFacts,
  type RegistrationInput,
  type RegistrationRules,
} from '../../../../src/domain/registration/index.js';
import { createScopeChecker, urlFingerprint } from '../../../../src/domain/url/index.js';

const NOW_MS = Date.UTC(2026, 0, 15);
const fp = (url: string): string => urlFingerprint(url);

function rules(overrides: Partial<RegistrationRules> = {}): RegistrationRules {
  return {
    canonicalizeOptions: {},
    scope: createScopeChecker(new Set(['a.test', 'b.test']), { mode: 'same-host' }),
    traps: { overflowSampleRate: 0 },
    seenFilter: undefined,
    maxDepth: 10,
    maxDiscoveredUrls: 1000,
    sitemapPriorityCap: 0.9,
    ...overrides,
  };
}

function facts(overrides: Partial<RegistrationFacts> = {}): RegistrationFacts {
  return {
    depths: new Map(),
    inlinks: new Map(),
    hostImportance: new Map(),
    hostUrls: new Map(),
    pathVariants: new Map(),
    depthContent: new Map(),
    present: new Set(),
    rejectionsCounted: 0,
    ...overrides,
  };
}

function links(urls: string[], overrides: Partial<RegistrationInput> = {}): RegistrationInput {
  return {
    sourceFingerprint: fp('http://a.test/'),
    depth: 1,
    urls: urls.map((absoluteUrl) => ({ absoluteUrl })),
    kind: 'link',
    nowMs: NOW_MS,
    ...overrides,
  };
}

function decide(inputs: RegistrationInput[], read: RegistrationFacts = facts(), ruleSet: RegistrationRules = rules()) {
  const batch = prepareRegistrations(inputs, ruleSet);
  const decision = decideRegistrations(batch, read, ruleSet);
  return { batch, decision, sources: batch.sources };
}

describe('prepareRegistrations', () => {
  it('reads nothing for an empty batch and for one with no URL in scope and none refused', () => {
    expect(prepareRegistrations([], rules()).query).toBeUndefined();
    expect(prepareRegistrations([links([])], rules()).query).toBeUndefined();
  });

  it('refuses a URL without a canonical form, counted by its code, and reads for it', () => {
    const batch = prepareRegistrations([links(['http://a.test:99999/'])], rules());
    const [source] = batch.sources;
    expect(source!.candidates).toEqual([]);
    expect(source!.rejections).toHaveLength(1);
    expect(source!.rejections[0]!.code).toMatch(/^invalid-url:/);
    // A refusal is counted against the crawl's refusals read so far.
    expect(batch.query).toBeDefined();
  });

  it('keeps one candidate per canonical URL of a source, in discovery order', () => {
    const batch = prepareRegistrations([links(['http://a.test/x', 'http://A.TEST/x', 'http://a.test/y', 'http://a.test/x#frag'])], rules());
    expect(batch.sources[0]!.candidates.map((candidate) => candidate.url.url)).toEqual(['http://a.test/x', 'http://a.test/y']);
  });

  it('records an edge per candidate, in scope or not, of the kind its source says', () => {
    const input = links(['http://a.test/x', 'http://elsewhere.test/y'], { kind: 'link' });
    input.urls.push({ absoluteUrl: 'http://a.test/feed', purpose: 'feed' }, { absoluteUrl: 'http://a.test/c', edge: 'canonical', anchorText: 'c', rel: 'nofollow' });
    const [source] = prepareRegistrations([input], rules()).sources;
    expect(source!.edges.map((edge) => [edge.target, edge.kind])).toEqual([
      [fp('http://a.test/x'), 'link'],
      [fp('http://elsewhere.test/y'), 'link'],
      [fp('http://a.test/feed'), 'feed'],
      [fp('http://a.test/c'), 'canonical'],
    ]);
    expect(source!.edges[3]).toMatchObject({ source: input.sourceFingerprint, anchorText: 'c', rel: 'nofollow' });
    const [redirect] = prepareRegistrations([links(['http://a.test/x'], { kind: 'redirect' })], rules()).sources;
    expect(redirect!.edges[0]!.kind).toBe('redirect');
    const [listing] = prepareRegistrations([links(['http://a.test/x'], { recordEdges: false })], rules()).sources;
    expect(listing!.edges).toEqual([]);
  });

  it('refuses out-of-scope URLs with their scope code, and sets their fate', () => {
    const [source] = prepareRegistrations([links(['http://elsewhere.test/y', 'http://a.test/x'])], rules()).sources;
    expect(source!.inScope.map((candidate) => candidate.url.url)).toEqual(['http://a.test/x']);
    expect(source!.rejections.map((rejection) => rejection.code)).toEqual(['out-of-scope:host']);
    expect(source!.fates.get(fp('http://elsewhere.test/y'))).toMatchObject({ kind: 'rejected', code: 'out-of-scope:host' });
  });

  it('asks the exact store about Bloom positives only, and reads growth, variants, content and twins of in-scope URLs', () => {
    const filter = BloomFilter.create(1000, 0.001);
    filter.add(fp('http://a.test/known'));
    const batch = prepareRegistrations(
      [links(['http://a.test/known', 'http://a.test/new?q=1', 'http://b.test/page;sid=abc']), links(['http://b.test/z'], { depth: 3 })],
      rules({ seenFilter: filter }),
    );
    expect(batch.query).toEqual({
      confirm: [fp('http://a.test/known')],
      hosts: ['a.test', 'b.test'],
      paths: [
        { host: 'a.test', path: '/new' },
        { host: 'b.test', path: '/page' },
      ],
      depthContent: [
        { depth: 0, host: 'a.test' },
        { depth: 0, host: 'b.test' },
        { depth: 2, host: 'b.test' },
      ],
      present: [fp('http://b.test/page')],
      withDiscoveryRoom: true,
    });
    expect(batch.sources[0]!.plan.negatives.size).toBe(2);
  });

  it('reads no discovery room for redirects, and refuses a batch that mixes links and redirects', () => {
    expect(prepareRegistrations([links(['http://a.test/x'], { kind: 'redirect' })], rules()).query?.withDiscoveryRoom).toBe(false);
    expect(() => prepareRegistrations([links(['http://a.test/x']), links(['http://a.test/y'], { kind: 'redirect' })], rules())).toThrow(/links or redirects, not both/);
  });
});

describe('decideRegistrations', () => {
  it('makes an unseen URL an entry at the source depth, with the priority discovery gives it', () => {
    const long = 'x'.repeat(600);
    const input = links([], { depth: 2, purpose: 'discovery' });
    input.urls.push({ absoluteUrl: 'http://a.test/new', anchorText: long });
    const { sources, decision } = decide([input]);
    const entry = sources[0]!.entries[0]!;
    expect(entry).toMatchObject({
      fingerprint: fp('http://a.test/new'),
      url: 'http://a.test/new',
      host: 'a.test',
      origin: 'http://a.test',
      depth: 2,
      discoveredFrom: input.sourceFingerprint,
      redirectHops: 0,
      redirectChain: [],
      purpose: 'discovery',
      source: 'link',
      ...priorityOfDiscovery({ depth: 2, trapPenalty: 0 }),
    });
    expect(entry.anchorText).toHaveLength(500);
    expect(entry.demotion).toBeUndefined();
    expect(entry.inlinks).toBeUndefined();
    expect(decision.entries).toEqual([entry]);
    expect(sources[0]!.fates.size).toBe(0);
  });

  it('takes a redirect target as a redirect: its source, hops and chain', () => {
    const { sources } = decide([links(['http://a.test/to'], { kind: 'redirect', redirect: { hops: 2, chain: ['f1', 'f2'] } })]);
    expect(sources[0]!.entries[0]).toMatchObject({ source: 'redirect', redirectHops: 2, redirectChain: ['f1', 'f2'] });
  });

  it('takes the URL purpose over the input purpose, and the input source when it gives one', () => {
    const input = links([], { purpose: 'discovery', source: 'sitemap' });
    input.urls.push({ absoluteUrl: 'http://a.test/feed.xml', purpose: 'feed' });
    expect(decide([input]).sources[0]!.entries[0]).toMatchObject({ purpose: 'feed', source: 'sitemap' });
  });

  it('knows a URL the exact store confirms, lowers it when held deeper, and counts a Bloom false positive', () => {
    const filter = BloomFilter.create(1000, 0.001);
    for (const url of ['http://a.test/deep', 'http://a.test/shallow', 'http://a.test/fp']) filter.add(fp(url));
    const read = facts({ depths: new Map([[fp('http://a.test/deep'), 5], [fp('http://a.test/shallow'), 1]]) });
    const { sources } = decide([links(['http://a.test/deep', 'http://a.test/shallow', 'http://a.test/fp'], { depth: 2 })], read, rules({ seenFilter: filter }));
    const [source] = sources;
    expect(source!.fates.get(fp('http://a.test/deep'))).toEqual({ kind: 'known' });
    expect(source!.fates.get(fp('http://a.test/shallow'))).toEqual({ kind: 'known' });
    expect(source!.deeper).toEqual([fp('http://a.test/deep')]);
    expect(source!.falsePositives).toBe(1);
    expect(source!.entries.map((entry) => entry.url)).toEqual(['http://a.test/fp']);
  });

  it('refuses a URL beyond maxDepth and keeps its identity for a shorter path found later', () => {
    const { sources } = decide([links(['http://a.test/far'], { depth: 4 })], facts(), rules({ maxDepth: 3 }));
    const [source] = sources;
    expect(source!.entries).toEqual([]);
    expect(source!.rejections).toMatchObject([{ code: DEPTH_REFUSAL, reason: "depth 4 is beyond the crawl's maxDepth 3" }]);
    expect(source!.tooDeep).toEqual([{ fingerprint: fp('http://a.test/far'), url: 'http://a.test/far', canonicalizationVersion: expect.any(Number), host: 'a.test', origin: 'http://a.test' }]);
  });

  it('refuses what the gate refuses, after the depth check', () => {
    const gate = (url: { path: string }) => (url.path === '/private' ? { code: 'robots-disallowed', reason: 'robots.txt disallows it' } : undefined);
    const { sources } = decide([links(['http://a.test/private', 'http://a.test/public'], { gate: gate as RegistrationInput['gate'] })]);
    expect(sources[0]!.rejections.map((rejection) => rejection.code)).toEqual(['robots-disallowed']);
    expect(sources[0]!.entries.map((entry) => entry.url)).toEqual(['http://a.test/public']);
  });

  it('demotes a URL past the host budget, and drops it far past it, by the counts read', () => {
    const traps = { maxUrlsPerHost: 10, overflowSampleRate: 0 };
    const demoted = decide([links(['http://a.test/one'])], facts({ hostUrls: new Map([['a.test', 15]]) }), rules({ traps })).sources[0]!;
    expect(demoted.entries[0]!.demotion).toBeDefined();
    expect(demoted.entries[0]!.priority).toBeLessThan(priorityOfDiscovery({ depth: 1, trapPenalty: 0 }).priority);
    const dropped = decide([links(['http://a.test/one'])], facts({ hostUrls: new Map([['a.test', 100]]) }), rules({ traps })).sources[0]!;
    expect(dropped.entries).toEqual([]);
    expect(dropped.drops.map((drop) => drop.candidate.url.url)).toEqual(['http://a.test/one']);
    // Refused only once the insert has settled the fates (settleFates).
    expect(dropped.rejections).toEqual([]);
  });

  it('counts growth within the batch: a page of many variants of one path trips the variant limit', () => {
    const traps = { maxVariantsPerPath: 2, overflowSampleRate: 0 };
    const urls = Array.from({ length: 10 }, (_, i) => `http://a.test/cal?d=${i}`);
    const { sources } = decide([links(urls)], facts(), rules({ traps }));
    const [source] = sources;
    expect(source!.entries.filter((entry) => entry.demotion === undefined)).toHaveLength(2);
    expect(source!.drops.length).toBeGreaterThan(0);
    expect(source!.entries.length + source!.drops.length).toBe(10);
  });

  it('demotes by the content stall at the source depth read', () => {
    const read = facts({ depthContent: new Map([[depthContentKey(6, 'a.test'), { pages: 100, newContent: 0 }]]) });
    const { sources } = decide([links(['http://a.test/deep'], { depth: 7 })], read, rules({ traps: { contentStallMinDepth: 5, overflowSampleRate: 0 } }));
    expect(sources[0]!.entries[0]!.demotion).toBeDefined();
    // Below MIN_PAGES_FOR_CONTENT_RATIO pages the share does not count.
    const few = facts({ depthContent: new Map([[depthContentKey(6, 'a.test'), { pages: 9, newContent: 0 }]]) });
    expect(decide([links(['http://a.test/deep'], { depth: 7 })], few, rules({ traps: { contentStallMinDepth: 5 } })).sources[0]!.entries[0]!.demotion).toBeUndefined();
  });

  it('uses the path variants read under their path key', () => {
    const read = facts({ pathVariants: new Map([[pathStatKey('a.test', '/list'), 1000]]) });
    const { sources } = decide([links(['http://a.test/list?page=2'])], read, rules({ traps: { maxVariantsPerPath: 50, overflowSampleRate: 0 } }));
    expect(sources[0]!.drops).toHaveLength(1);
  });

  it('drops a session-id URL whose session-free twin the crawl holds or the batch finds, but not one whose twin is unknown', () => {
    const twin = fp('http://a.test/page');
    const held = decide([links(['http://a.test/page;jsessionid=abc'])], facts({ present: new Set([twin]) })).sources[0]!;
    expect(held.drops[0]!.assessment.reasons.at(-1)).toMatchObject({ code: 'session-id', action: 'drop' });
    const inSource = decide([links(['http://a.test/page', 'http://a.test/page;jsessionid=abc'])]).sources[0]!;
    expect(inSource.entries.map((entry) => entry.url)).toEqual(['http://a.test/page']);
    expect(inSource.drops).toHaveLength(1);
    const earlierSource = decide([links(['http://a.test/page']), links(['http://a.test/page;jsessionid=abc'])]).sources[1]!;
    expect(earlierSource.drops).toHaveLength(1);
    const unknown = decide([links(['http://a.test/page;jsessionid=abc'])]).sources[0]!;
    expect(unknown.drops).toEqual([]);
    // A deterministic sample is kept: with a rate of 1 every such URL is.
    const sampled = decide([links(['http://a.test/page;jsessionid=abc'])], facts({ present: new Set([twin]) }), rules({ traps: { overflowSampleRate: 1 } })).sources[0]!;
    expect(sampled.drops).toEqual([]);
  });

  it('raises a listed URL up to the cap, but never a demoted one', () => {
    const input = links([]);
    input.urls.push({ absoluteUrl: 'http://a.test/listed', listed: { listedPriority: 1 } });
    const base = priorityOfDiscovery({ depth: 1, trapPenalty: 0 }).priority;
    const raised = decide([input]).sources[0]!.entries[0]!;
    expect(raised.priority).toBeCloseTo(0.9);
    expect(raised.priority).toBeGreaterThan(base);
    const demotedRead = facts({ hostUrls: new Map([['a.test', 15]]) });
    const demoted = decide([input], demotedRead, rules({ traps: { maxUrlsPerHost: 10, overflowSampleRate: 0 } })).sources[0]!.entries[0]!;
    expect(demoted.priority).toBeLessThan(base);
  });

  it('counts a page link as an in-link of its target: cross-host ones for the host, known targets for a bump', () => {
    const read = facts({ depths: new Map([[fp('http://b.test/known'), 2]]) });
    const filter = BloomFilter.create(1000, 0.001);
    filter.add(fp('http://b.test/known'));
    const { sources, decision } = decide([links(['http://b.test/new', 'http://b.test/known', 'http://a.test/same'], { sourceHost: 'a.test' })], read, rules({ seenFilter: filter }));
    const byUrl = new Map(sources[0]!.entries.map((entry) => [entry.url, entry]));
    expect(byUrl.get('http://b.test/new')!.inlinks).toBe(1);
    expect(byUrl.get('http://a.test/same')!.inlinks).toBe(0.5);
    expect(byUrl.get('http://b.test/new')!.priority).toBe(priorityOfDiscovery({ depth: 1, trapPenalty: 0, inlinks: 1 }).priority);
    expect(decision.crossHostInlinks).toEqual(new Map([['b.test', 2]]));
    expect(decision.inlinksToKnown).toEqual(new Map([[fp('http://b.test/known'), { host: 'b.test', weight: 1 }]]));
  });

  it('counts no in-links from redirects, sitemaps or a source without a host', () => {
    for (const input of [
      links(['http://b.test/x'], { kind: 'redirect', sourceHost: 'a.test' }),
      links(['http://b.test/x'], { source: 'sitemap', sourceHost: 'a.test' }),
      links(['http://b.test/x']),
    ]) {
      const { sources, decision } = decide([input]);
      expect(sources[0]!.entries[0]!.inlinks).toBeUndefined();
      expect(decision.crossHostInlinks.size).toBe(0);
    }
  });

  it('weighs host importance read into the priority', () => {
    const read = facts({ hostImportance: new Map([['b.test', { set: 1, inlinks: 0 }]]) });
    const entry = decide([links(['http://b.test/x'], { sourceHost: 'a.test' })], read).sources[0]!.entries[0]!;
    expect(entry.priority).toBe(priorityOfDiscovery({ depth: 1, trapPenalty: 0, inlinks: 1, hostImportance: 1 }).priority);
  });

  it('takes a URL an earlier source of the batch registered as known, lowering it and adding the later in-links', () => {
    const { sources, decision } = decide([
      links(['http://b.test/x'], { depth: 3, sourceHost: 'a.test', sourceFingerprint: 'f1' }),
      links(['http://b.test/x'], { depth: 1, sourceHost: 'a.test', sourceFingerprint: 'f2' }),
    ]);
    expect(sources[1]!.fates.get(fp('http://b.test/x'))).toEqual({ kind: 'known' });
    expect(sources[1]!.entries).toEqual([]);
    expect(decision.entries).toHaveLength(1);
    const entry = decision.entries[0]!;
    expect(entry.depth).toBe(1);
    expect(entry.inlinks).toBe(2);
    expect(entry.priority).toBe(priorityOfDiscovery({ depth: 1, trapPenalty: 0, inlinks: 2 }).priority);
    // Not lowered by a longer path.
    const longer = decide([links(['http://b.test/x'], { depth: 1 }), links(['http://b.test/x'], { depth: 3 })]).decision.entries[0]!;
    expect(longer.depth).toBe(1);
  });

  it('keeps a demoted entry demoted when a later source lowers it or links to it', () => {
    const traps = { maxUrlsPerHost: 10, overflowSampleRate: 0 };
    const read = facts({ hostUrls: new Map([['b.test', 15]]) });
    const { decision } = decide([links(['http://b.test/x'], { depth: 3 }), links(['http://b.test/x'], { depth: 1, sourceHost: 'a.test' })], read, rules({ traps }));
    const entry = decision.entries[0]!;
    expect(entry.depth).toBe(1);
    expect(entry.inlinks).toBe(1);
    expect(entry.priority).toBeLessThan(priorityOfDiscovery({ depth: 3, trapPenalty: 0 }).priority);
  });
});
