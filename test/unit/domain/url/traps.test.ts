import { describe, expect, it } from 'vitest';
import {
  assessTrap,
  canonicalizeUrl,
  TrapOptionsError,
  type TrapContext,
  type TrapOptions,
  type TrapReasonCode,
} from '../../../../src/domain/url/index.js';

const NOW = Date.UTC(2026, 5, 15);
const ctx = (overrides: Partial<TrapContext> = {}): TrapContext => ({ depth: 1, nowMs: NOW, hostUrlCount: 0, pathVariantCount: 0, ...overrides });
const assess = (url: string, context: Partial<TrapContext> = {}, options?: TrapOptions) => assessTrap(canonicalizeUrl(url), ctx(context), options);
const codes = (result: { reasons: { code: TrapReasonCode }[] }): TrapReasonCode[] => result.reasons.map((reason) => reason.code);
const query = (n: number): string => Array.from({ length: n }, (_, i) => `p${i}=${i}`).join('&');

describe('assessTrap: ordinary URLs', () => {
  it('accepts a plain page with no reasons and no penalty', () => {
    expect(assess('https://example.com/docs/intro?lang=en')).toEqual({ action: 'accept', priorityPenalty: 0, reasons: [] });
  });

  it('accepts numbers that only look like years and recent calendar pages', () => {
    expect(assess('https://example.com/item/2048').action).toBe('accept');
    expect(assess('https://example.com/calendar/2027/01').action).toBe('accept');
  });
});

describe('assessTrap: each reason code', () => {
  it('depth: beyond an explicit maxDepth the URL is dropped; no limit by default', () => {
    expect(assess('https://example.com/a', { depth: 50 }).action).toBe('accept');
    const result = assess('https://example.com/a', { depth: 6 }, { maxDepth: 5 });
    expect(result).toMatchObject({ action: 'drop', priorityPenalty: 1 });
    expect(codes(result)).toEqual(['depth']);
  });

  it('query-params: more than 10 pairs demotes, more than 30 drops', () => {
    expect(assess(`https://example.com/s?${query(10)}`).action).toBe('accept');
    const demoted = assess(`https://example.com/s?${query(11)}`);
    expect(demoted.action).toBe('demote');
    expect(codes(demoted)).toEqual(['query-params']);
    expect(demoted.reasons[0]?.detail).toContain('11 query parameters is over 10');
    expect(assess(`https://example.com/s?${query(31)}`).action).toBe('drop');
  });

  it('url-length: over 200 characters demotes', () => {
    const result = assess(`https://example.com/${'a'.repeat(200)}`);
    expect(result.action).toBe('demote');
    expect(codes(result)).toEqual(['url-length']);
  });

  it('repeated-segment: the same segment more than 3 times demotes, far more drops', () => {
    expect(assess('https://example.com/a/b/a/b/a/b').action).toBe('accept');
    const result = assess('https://example.com/a/b/a/b/a/b/a/b');
    expect(result.action).toBe('demote');
    expect(codes(result)).toEqual(['repeated-segment']);
    expect(assess(`https://example.com${'/x'.repeat(10)}`).action).toBe('drop');
  });

  it('calendar: a date a few years ahead demotes, /calendar/2099/12 is dropped', () => {
    const soon = assess('https://example.com/calendar/2031/12');
    expect(soon.action).toBe('demote');
    expect(codes(soon)).toEqual(['calendar']);
    const far = assess('https://example.com/calendar/2099/12');
    expect(far.action).toBe('drop');
    expect(far.reasons[0]?.detail).toContain('2099');
  });

  it('calendar: query dates count too, and past archives are demoted but never dropped', () => {
    expect(codes(assess('https://example.com/events?date=2040-01-01'))).toEqual(['calendar']);
    expect(codes(assess('https://example.com/events?year=2040'))).toEqual(['calendar']);
    expect(assess('https://example.com/events?id=2040').action).toBe('accept');
    const past = assess('https://example.com/blog/1999-12/');
    expect(past.action).toBe('demote');
    expect(assess('https://example.com/blog/1000/01').action).toBe('demote');
  });

  it('session-id: session parameters in the query or the path demote, never drop', () => {
    const query = assess('https://example.com/cart?PHPSESSID=abc123&item=4');
    expect(query.action).toBe('demote');
    expect(codes(query)).toEqual(['session-id']);
    expect(query.reasons[0]?.detail).toContain('phpsessid');
    expect(codes(assess('https://example.com/cart;jsessionid=ABC'))).toEqual(['session-id']);
    expect(assess('https://example.com/cart?session_ref=1').action).toBe('accept');
    expect(codes(assess('https://example.com/a?tok=1', {}, { sessionParamNames: ['TOK'] }))).toEqual(['session-id']);
  });

  it('host-budget: over the per-host budget demotes, far over drops', () => {
    const options = { maxUrlsPerHost: 100, overflowSampleRate: 0 };
    expect(assess('https://example.com/a', { hostUrlCount: 99 }, options).action).toBe('accept');
    const over = assess('https://example.com/a', { hostUrlCount: 100 }, options);
    expect(over.action).toBe('demote');
    expect(codes(over)).toEqual(['host-budget']);
    expect(assess('https://example.com/a', { hostUrlCount: 300 }, options).action).toBe('drop');
  });

  it('path-variants: too many distinct queries for one path demotes, far too many drops', () => {
    expect(assess('https://example.com/search?q=x', { pathVariantCount: 49 }).action).toBe('accept');
    const over = assess('https://example.com/search?q=x', { pathVariantCount: 50 });
    expect(codes(over)).toEqual(['path-variants']);
    expect(over.action).toBe('demote');
    expect(assess('https://example.com/search?q=x', { pathVariantCount: 150 }, { overflowSampleRate: 0 }).action).toBe('drop');
    // A URL without a query is not a variant.
    expect(assess('https://example.com/search', { pathVariantCount: 500 }).action).toBe('accept');
  });

  it('content-stall: almost no new content at depth ≥ 5 demotes', () => {
    expect(assess('https://example.com/a', { depth: 4, uniqueContentRatioAtDepth: 0 }).action).toBe('accept');
    expect(assess('https://example.com/a', { depth: 6, uniqueContentRatioAtDepth: 0.5 }).action).toBe('accept');
    const stalled = assess('https://example.com/a', { depth: 6, uniqueContentRatioAtDepth: 0.005 });
    expect(stalled).toMatchObject({ action: 'demote', priorityPenalty: 0.5 });
    expect(codes(stalled)).toEqual(['content-stall']);
  });
});

describe('assessTrap: demote before drop', () => {
  it('penalty grows with the excess between the demotion and drop thresholds', () => {
    const penalties = [11, 15, 20, 25, 30].map((n) => assess(`https://example.com/s?${query(n)}`).priorityPenalty);
    expect(penalties.every((p) => p > 0 && p < 1)).toBe(true);
    expect([...penalties].sort((a, b) => a - b)).toEqual(penalties);
    expect(penalties[0]).toBeLessThan(penalties[4] as number);
  });

  it('a growing host walks accept → demote → drop, never straight to drop', () => {
    const actions = [50, 100, 150, 250, 301].map((count) => assess('https://example.com/a', { hostUrlCount: count }, { maxUrlsPerHost: 100, overflowSampleRate: 0 }).action);
    expect(actions).toEqual(['accept', 'demote', 'demote', 'demote', 'drop']);
  });

  it('keeps a deterministic sample of overflow URLs, demoted, so the pattern stays visible', () => {
    const urls = Array.from({ length: 400 }, (_, i) => `https://example.com/p/${i}`);
    const options = { maxUrlsPerHost: 10, overflowSampleRate: 0.1 };
    const results = urls.map((url) => assess(url, { hostUrlCount: 1000 }, options));
    const kept = results.filter((r) => r.action === 'demote');
    expect(kept.length).toBeGreaterThan(15);
    expect(kept.length).toBeLessThan(70);
    expect(results.every((r) => r.action !== 'accept')).toBe(true);
    expect(kept[0]?.reasons[0]?.detail).toContain('sample');
    // Same URL, same answer, in any process.
    expect(urls.map((url) => assess(url, { hostUrlCount: 1000 }, options).action)).toEqual(results.map((r) => r.action));
  });

  it('combines signals: every reason is listed and penalties compound below 1', () => {
    const result = assess(`https://example.com/cal/2031/12?sid=1&${query(11)}`);
    expect(result.action).toBe('demote');
    expect(codes(result).sort()).toEqual(['calendar', 'query-params', 'session-id']);
    expect(result.priorityPenalty).toBeGreaterThan(0.5);
    expect(result.priorityPenalty).toBeLessThan(1);
    expect(result.reasons.every((reason) => reason.detail.length > 10)).toBe(true);
  });

  it('drops when any signal is past its drop point, listing the demoting signals too', () => {
    const result = assess('https://example.com/calendar/2099/12?jsessionid=x');
    expect(result).toMatchObject({ action: 'drop', priorityPenalty: 1 });
    expect(result.reasons.map((r) => [r.code, r.action])).toEqual([
      ['calendar', 'drop'],
      ['session-id', 'demote'],
    ]);
  });
});

describe('assessTrap options', () => {
  it.each([
    [{ maxQueryParams: -1 }, 'maxQueryParams'],
    [{ maxUrlLength: Number.NaN }, 'maxUrlLength'],
    [{ dropMultiplier: 1 }, 'dropMultiplier'],
    [{ overflowSampleRate: 2 }, 'overflowSampleRate'],
    [{ maxDepth: 1.5 }, 'maxDepth'],
  ])('%j is refused naming %s', (options, field) => {
    expect(() => assess('https://example.com/', {}, options as TrapOptions)).toThrow(TrapOptionsError);
    expect(() => assess('https://example.com/', {}, options as TrapOptions)).toThrow(expect.objectContaining({ field, code: 'TRAP_OPTION_INVALID' }));
  });

  it('honours a custom window and multiplier', () => {
    expect(assess('https://example.com/cal/2031/12', {}, { calendarYearsWindow: 10 }).action).toBe('accept');
    expect(assess(`https://example.com/s?${query(12)}`, {}, { dropMultiplier: 1.1 }).action).toBe('drop');
  });
});
