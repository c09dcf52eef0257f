import { describe, expect, it } from 'vitest';
import { BloomFilter } from '../../../../src/domain/frontier/index.js';
import {
  DISCOVERY_BUDGET_REFUSAL,
  decideRegistrations,
  depthLoweringsOf,
  growthOf,
  inlinkBumpsOf,
  prepareRegistrations,
  priorityOfDiscovery,
  registrationResultsOf,
  seenFiguresOf,
  settleFates,
  type RegistrationFacts,
  type RegistrationInput,
  type RegistrationRules,
} from '../../../../src/domain/registration/index.js';
import { createScopeChecker, urlFingerprint } from '../../../../src/domain/url/index.js';

const fp = (url: string): string => urlFingerprint(url);

function rules(overrides: Partial<RegistrationRules> = {}): RegistrationRules {
  return {
    canonicalizeOptions: {},
    scope: createScopeChecker(new Set(['a.test', 'b.test']), { mode: 'same-host' }),
    traps: { overflowSampleRate: 0 },
    seenFilter: undefined,
    maxDepth: 10,
    maxDiscoveredUrls: 7,
    sitemapPriorityCap: 0.9,
    ...overrides,
  };
}

function facts(overrides: Partial<RegistrationFacts> = {}): RegistrationFacts {
  return { depths: new Map(), inlinks: new Map(), hostImportance: new Map(), hostUrls: new Map(), pathVariants: new Map(), depthContent: new Map(), present: new Set(), rejectionsCounted: 0, ...overrides };
}

function links(urls: string[], overrides: Partial<RegistrationInput> = {}): RegistrationInput {
  return { sourceFingerprint: fp('http://a.test/'), depth: 1, urls: urls.map((absoluteUrl) => ({ absoluteUrl })), kind: 'link', nowMs: 0, ...overrides };
}

function decided(inputs: RegistrationInput[], read: RegistrationFacts = facts(), ruleSet: RegistrationRules = rules()) {
  const batch = prepareRegistrations(inputs, ruleSet);
  const decision = decideRegistrations(batch, read, ruleSet);
  return { batch, decision, read };
}

describe('depthLoweringsOf', () => {
  it('lowers the known URLs found deeper, and the entries another worker inserted deeper meanwhile, to the source depth', () => {
    const filter = BloomFilter.create(1000, 0.001);
    filter.add(fp('http://a.test/known'));
    const { batch } = decided([links(['http://a.test/known', 'http://a.test/raced', 'http://a.test/same'], { depth: 2 })], facts({ depths: new Map([[fp('http://a.test/known'), 4]]) }), rules({ seenFilter: filter }));
    const present = new Map([
      [fp('http://a.test/raced'), 3],
      [fp('http://a.test/same'), 2],
    ]);
    const atDepth = priorityOfDiscovery({ depth: 2, trapPenalty: 0 });
    expect(depthLoweringsOf(batch, present)).toEqual([
      { fingerprint: fp('http://a.test/known'), depth: 2, ...atDepth },
      { fingerprint: fp('http://a.test/raced'), depth: 2, ...atDepth },
    ]);
  });
});

describe('inlinkBumpsOf', () => {
  it('bumps a known URL by its new in-links at its shallowest depth, and skips one whose depth is unknown', () => {
    const known = fp('http://b.test/known');
    const filter = BloomFilter.create(1000, 0.001);
    filter.add(known);
    filter.add(fp('http://b.test/gone'));
    const read = facts({ depths: new Map([[known, 4]]), inlinks: new Map([[known, 3]]) });
    const { decision } = decided([links(['http://b.test/known', 'http://b.test/gone'], { sourceHost: 'a.test', depth: 2 })], read, rules({ seenFilter: filter }));
    expect(inlinkBumpsOf(decision, read, [])).toEqual([{ fingerprint: known, inlinks: 1, ...priorityOfDiscovery({ depth: 4, trapPenalty: 0, inlinks: 4 }) }]);
    const lowered = [{ fingerprint: known, depth: 2, priority: 0, tier: 0 }];
    expect(inlinkBumpsOf(decision, read, lowered)).toEqual([{ fingerprint: known, inlinks: 1, ...priorityOfDiscovery({ depth: 2, trapPenalty: 0, inlinks: 4 }) }]);
  });
});

describe('settleFates', () => {
  it('gives each entry its fate: inserted, present, or over a budget that bound, counted with the refusals', () => {
    const { batch } = decided([links(['http://a.test/in', 'http://a.test/there', 'http://a.test/out'])]);
    settleFates(batch, { inserted: new Set([fp('http://a.test/in')]), present: new Map([[fp('http://a.test/there'), 1]]), budgetBound: true }, 7);
    const [source] = batch.sources;
    expect(source!.fates.get(fp('http://a.test/in'))).toEqual({ kind: 'registered' });
    expect(source!.fates.get(fp('http://a.test/there'))).toEqual({ kind: 'known' });
    expect(source!.fates.get(fp('http://a.test/out'))).toEqual({ kind: 'over-budget' });
    expect(source!.rejections).toEqual([
      { url: 'http://a.test/out', fingerprint: fp('http://a.test/out'), code: DISCOVERY_BUDGET_REFUSAL, reason: "the crawl's discovery budget (maxDiscoveredUrls 7) is spent" },
    ]);
  });

  it('takes an entry neither inserted nor present as known when the budget did not bind (the crawl kind kept it out)', () => {
    const { batch } = decided([links(['http://a.test/fetched'])]);
    settleFates(batch, { inserted: new Set(), present: new Map(), budgetBound: false }, 7);
    expect(batch.sources[0]!.fates.get(fp('http://a.test/fetched'))).toEqual({ kind: 'known' });
    expect(batch.sources[0]!.rejections).toEqual([]);
  });

  it('refuses trap drops after the budget refusals, by the codes that dropped them', () => {
    const traps = { maxUrlsPerHost: 10, overflowSampleRate: 0 };
    const { batch } = decided([links(['http://a.test/in', 'http://b.test/trap'])], facts({ hostUrls: new Map([['b.test', 100]]) }), rules({ traps }));
    settleFates(batch, { inserted: new Set(), present: new Map(), budgetBound: true }, 7);
    const [source] = batch.sources;
    expect(source!.rejections.map((rejection) => rejection.code)).toEqual([DISCOVERY_BUDGET_REFUSAL, 'trap:host-budget']);
    expect(source!.fates.get(fp('http://b.test/trap'))).toMatchObject({ kind: 'rejected', code: 'trap:host-budget' });
    expect(source!.rejections[1]!.detail).toEqual(source!.drops[0]!.assessment.reasons);
  });
});

describe('growthOf', () => {
  it('counts inserted URLs, demotions, drops and cross-host in-links by host, and inserted variants by path', () => {
    const traps = { maxUrlsPerHost: 10, overflowSampleRate: 0 };
    const read = facts({ hostUrls: new Map([['b.test', 12]]) });
    const { batch, decision } = decided(
      [links(['http://a.test/p?x=1', 'http://a.test/p?x=2', 'http://a.test/q', 'http://b.test/demoted'], { sourceHost: 'a.test' }), links(['http://a.test/p?x=1'], { sourceHost: 'a.test' })],
      read,
      rules({ traps }),
    );
    const inserted = new Set([fp('http://a.test/p?x=1'), fp('http://a.test/q'), fp('http://b.test/demoted')]);
    const growth = growthOf(batch, decision, inserted);
    expect(growth.hosts).toEqual(
      new Map([
        ['a.test', { urls: 2, demoted: 0, dropped: 0 }],
        ['b.test', { urls: 1, demoted: 1, dropped: 0, inlinks: 1 }],
      ]),
    );
    // Counted once, for the source whose entry it is.
    expect(growth.paths).toEqual([{ host: 'a.test', path: '/p', variants: 1 }]);
    const dropped = decided([links(['http://b.test/x'])], facts({ hostUrls: new Map([['b.test', 100]]) }), rules({ traps }));
    expect(growthOf(dropped.batch, dropped.decision, new Set()).hosts.get('b.test')).toEqual({ urls: 0, demoted: 0, dropped: 1 });
  });
});

describe('seenFiguresOf and registrationResultsOf', () => {
  it('reports the seen test per source, filtered or not', () => {
    const filter = BloomFilter.create(1000, 0.001);
    filter.add(fp('http://a.test/fp'));
    const filtered = decided([links(['http://a.test/fp', 'http://a.test/new', 'http://elsewhere.test/'])], facts(), rules({ seenFilter: filter }));
    expect(seenFiguresOf(filtered.batch.sources[0]!)).toEqual({ checked: 2, unfiltered: 0, negatives: 1, positives: 1, falsePositives: 1 });
    const unfiltered = decided([links(['http://a.test/new'])]);
    expect(seenFiguresOf(unfiltered.batch.sources[0]!)).toEqual({ checked: 1, unfiltered: 1, negatives: 0, positives: 0, falsePositives: 0 });
  });

  it('gives each source its registrations, edges, refusals and every canonical URL fate in discovery order', () => {
    const { batch } = decided([links(['http://elsewhere.test/', 'http://a.test/in', 'http://a.test/again']), links(['http://a.test/in'])]);
    const inserted = new Set([fp('http://a.test/in')]);
    settleFates(batch, { inserted, present: new Map(), budgetBound: false }, 7);
    const [first, second] = registrationResultsOf(batch, inserted);
    expect(first).toEqual({
      registered: 1,
      edges: 3,
      rejected: [{ url: 'http://elsewhere.test/', reason: expect.stringMatching(/^out-of-scope:host: /) }],
      outcomes: [
        { url: 'http://elsewhere.test/', fingerprint: fp('http://elsewhere.test/'), fate: expect.objectContaining({ kind: 'rejected' }) },
        { url: 'http://a.test/in', fingerprint: fp('http://a.test/in'), fate: { kind: 'registered' } },
        { url: 'http://a.test/again', fingerprint: fp('http://a.test/again'), fate: { kind: 'known' } },
      ],
    });
    // The second source found the first one's entry: known to it, registered by the first.
    expect(second).toEqual({ registered: 0, edges: 1, rejected: [], outcomes: [{ url: 'http://a.test/in', fingerprint: fp('http://a.test/in'), fate: { kind: 'known' } }] });
  });
});
