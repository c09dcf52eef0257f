import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RENDER_BUDGET,
  MAX_HASH_ROUTES_PER_PAGE,
  MAX_SUBRESOURCE_WAIT_MS,
  RenderInputError,
  hashRouteKeyOf,
  hashRoutesOf,
  normalizeRenderRule,
  acquireLedgerTurn,
  releaseLedgerTurn,
  renderBudgetLeft,
  renderBudgetVerdict,
  renderRuleFor,
  subresourceWaitMs,
  validateRenderBudget,
} from '../../../../src/domain/render/index.js';
import { applyHostOutcome, initialHostPolitenessState, onFetchStarted, resolveHostPolitenessPolicy } from '../../../../src/domain/politeness/index.js';

describe('renderBudgetVerdict', () => {
  const budget = { maxRenders: 10, maxCpuSeconds: 20, maxRendersPerHost: 3 };
  it.each([
    [{ renders: 0, cpuMs: 0, hostRenders: 0 }, { within: true }],
    [{ renders: 9, cpuMs: 19_999, hostRenders: 2 }, { within: true }],
    [{ renders: 10, cpuMs: 0, hostRenders: 0 }, { within: false, spent: 'renders' }],
    [{ renders: 1, cpuMs: 20_000, hostRenders: 0 }, { within: false, spent: 'cpu' }],
    [{ renders: 1, cpuMs: 0, hostRenders: 3 }, { within: false, spent: 'host-renders' }],
  ])('%o → %o', (spending, verdict) => {
    expect(renderBudgetVerdict(spending, budget)).toEqual(verdict);
  });
  it('says what is left', () => {
    expect(renderBudgetLeft({ renders: 4, cpuMs: 5_500 }, budget)).toEqual({ renders: 6, cpuSeconds: 14 });
    expect(renderBudgetLeft({ renders: 40, cpuMs: 50_000 }, budget)).toEqual({ renders: 0, cpuSeconds: 0 });
  });
  it('refuses a budget that is not whole numbers', () => {
    expect(() => validateRenderBudget({ ...DEFAULT_RENDER_BUDGET, maxRenders: -1 })).toThrow(RenderInputError);
    expect(() => validateRenderBudget({ ...DEFAULT_RENDER_BUDGET, maxCpuSeconds: 1.5 }, 'render')).toThrow(/render\.maxCpuSeconds/);
  });
});

describe('render rules', () => {
  it('normalizes hosts and prefixes, and refuses the rest', () => {
    expect(normalizeRenderRule(' App.Example.com ', 'x')).toBe('app.example.com');
    expect(normalizeRenderRule('https://App.example.com/app/#x', 'x')).toBe('https://app.example.com/app/');
    expect(() => normalizeRenderRule('ftp://a.example/', 'renderAllow[0]')).toThrow(RenderInputError);
    expect(() => normalizeRenderRule('not a rule', 'x')).toThrow(/host/);
    expect(() => normalizeRenderRule('.example.com', 'x')).toThrow(RenderInputError);
  });
  it('matches a host on any port, a prefix by its text', () => {
    expect(renderRuleFor({ allow: ['127.0.0.1'], deny: [] }, 'http://127.0.0.1:8080/a')).toBe('allow');
    expect(renderRuleFor({ allow: ['https://a.example/app'], deny: [] }, 'https://a.example/application')).toBe('allow');
    expect(renderRuleFor({ allow: ['https://a.example/app/'], deny: [] }, 'https://a.example/other')).toBeUndefined();
    expect(renderRuleFor({ allow: ['a.example'], deny: [] }, 'not a url')).toBeUndefined();
  });
});

describe('hash routes', () => {
  const page = 'https://spa.example/shop?x=1';
  it.each([
    ['#/products/42', '#/products/42'],
    ['#!/products/42/', '#!/products/42'],
    ['https://spa.example/shop?x=1#/cart', '#/cart'],
    ['#reviews', undefined],
    ['#/', undefined],
    ['/other#/x', undefined],
    ['https://other.example/shop?x=1#/x', undefined],
    ['?x=2#/x', undefined],
  ])('%s → %s', (href, key) => {
    expect(hashRouteKeyOf(href, page)).toBe(key);
  });
  it('lists distinct routes, without the one rendered, bounded', () => {
    expect(hashRoutesOf(['#/a', '#/b', '#/a', '#top', '#/c'], page, '#/b')).toEqual(['#/a', '#/c']);
    expect(hashRoutesOf(Array.from({ length: 50 }, (_, i) => `#/p/${i}`), page)).toHaveLength(MAX_HASH_ROUTES_PER_PAGE);
  });
});

describe('subresource pacing', () => {
  const T = 1_700_000_000_000;
  const policy = resolveHostPolitenessPolicy({ minDelayMs: 1000 });

  it('waits out the host delay counted from the page fetch, request after request', () => {
    // The page was fetched in the host's turn and answered at T: its first subresource waits a full delay.
    let state = applyHostOutcome(onFetchStarted(initialHostPolitenessState(T - 50), T - 50), { kind: 'response', startedAtMs: T - 50, finishedAtMs: T, status: 200, responseMs: 10 }, policy, () => 0.5);
    expect(subresourceWaitMs(state, policy, T)).toBe(1000);
    state = applyHostOutcome(onFetchStarted(state, T + 1000), { kind: 'response', startedAtMs: T + 1000, finishedAtMs: T + 1020, status: 200, responseMs: 20 }, policy, () => 0.5);
    expect(subresourceWaitMs(state, policy, T + 1020)).toBe(1000);
  });

  it('refuses a request the host asks to wait longer for, or while a request is in flight', () => {
    const throttled = { ...initialHostPolitenessState(T), retryAfterAtMs: T + MAX_SUBRESOURCE_WAIT_MS + 1 };
    expect(subresourceWaitMs(throttled, policy, T)).toBeUndefined();
    expect(subresourceWaitMs(onFetchStarted(initialHostPolitenessState(T), T), policy, T)).toBeUndefined();
    const opened = { ...initialHostPolitenessState(T), consecutiveFailures: 9 };
    expect(subresourceWaitMs(opened, policy, T)).toBeUndefined();
  });

  it('gives the ledger turn to one request at a time, each a delay after the last one ended', () => {
    const free = { nextAtMs: 0, busyUntilMs: 0 };
    const first = acquireLedgerTurn(free, T, 30_000);
    expect(first).toEqual({ acquired: true, entry: { nextAtMs: 0, busyUntilMs: T + 30_000 } });
    // Another asks while the first is under way: it polls, and cannot start before the first ends.
    expect(acquireLedgerTurn(first.acquired ? first.entry : free, T + 10, 30_000)).toEqual({ acquired: false, retryAtMs: T + 60 });
    const released = releaseLedgerTurn(first.acquired ? first.entry : free, T + 200, 1000);
    expect(released).toEqual({ nextAtMs: T + 1200, busyUntilMs: 0 });
    expect(acquireLedgerTurn(released, T + 300, 30_000)).toEqual({ acquired: false, retryAtMs: T + 1200 });
    expect(acquireLedgerTurn(released, T + 1200, 30_000).acquired).toBe(true);
    // A turn held past its hold (its holder died) frees itself.
    expect(acquireLedgerTurn({ nextAtMs: 0, busyUntilMs: T }, T, 30_000).acquired).toBe(true);
    // Released never earlier than the ledger said.
    expect(releaseLedgerTurn({ nextAtMs: T + 90_000, busyUntilMs: 1 }, T + 200, 1000)).toEqual({ nextAtMs: T + 90_000, busyUntilMs: 0 });
  });
});
