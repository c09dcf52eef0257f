import { describe, expect, it } from 'vitest';
import {
  amountOf,
  costUnitOf,
  defaultCostModel,
  notModifiedBytesOf,
  pageTypeOfPath,
  validateCostModel,
  validatorHonourRate,
  visitCost,
  type HostValidatorRecord,
} from '../../../../src/domain/recrawl/index.js';

describe('cost models', () => {
  const totals = { transferBytes: 2_500_000_000, successfulRequests: 40_000 };

  it('bills bytes through a gateway or direct per GB, failed requests’ bytes included in the total given', () => {
    expect(amountOf({ kind: 'gateway-bytes', price: 8 }, totals)).toBeCloseTo(20, 12);
    expect(amountOf({ kind: 'direct-bytes', price: 0.02 }, totals)).toBeCloseTo(0.05, 12);
  });

  it('bills API credits per successful request, whatever the bytes', () => {
    expect(amountOf({ kind: 'successful-requests', price: 0.001 }, totals)).toBeCloseTo(40, 12);
    expect(amountOf({ kind: 'successful-requests', price: 0.001 }, { transferBytes: 0, successfulRequests: 40_000 })).toBeCloseTo(40, 12);
  });

  it('has no amount without a price: figures stay in bytes and requests', () => {
    expect(amountOf({ kind: 'gateway-bytes', price: 0 }, totals)).toBeNull();
  });

  it('charges visits by bytes, or by requests for API credits', () => {
    expect(costUnitOf({ kind: 'gateway-bytes', price: 1 })).toBe('bytes');
    expect(costUnitOf({ kind: 'direct-bytes', price: 0 })).toBe('bytes');
    expect(costUnitOf({ kind: 'successful-requests', price: 1 })).toBe('requests');
  });

  it('defaults to a gateway through proxies and to our own bandwidth direct', () => {
    expect(defaultCostModel(true)).toEqual({ kind: 'gateway-bytes', price: 0 });
    expect(defaultCostModel(false)).toEqual({ kind: 'direct-bytes', price: 0 });
  });

  it('refuses an unknown kind or a negative price with a stable code', () => {
    expect(() => validateCostModel({ kind: 'per-page' as never, price: 1 })).toThrow(expect.objectContaining({ code: 'RECRAWL_OPTIONS_INVALID', field: 'costModel.kind' }));
    expect(() => validateCostModel({ kind: 'gateway-bytes', price: -1 })).toThrow(expect.objectContaining({ field: 'costModel.price' }));
    expect(() => amountOf({ kind: 'gateway-bytes', price: 1 }, { transferBytes: -1, successfulRequests: 0 })).toThrow(expect.objectContaining({ code: 'RECRAWL_COST_INPUT_INVALID' }));
  });
});

describe('host validators', () => {
  const record = (over: Partial<HostValidatorRecord>): HostValidatorRecord => ({ conditionalUnchanged: 0, conditionalNotModified: 0, notModifiedRequests: 0, notModifiedTransferBytes: 0, ...over });

  it('takes an unmeasured host to honour its validators, and learns from its answers', () => {
    expect(validatorHonourRate(undefined)).toBe(1);
    expect(validatorHonourRate(record({}))).toBe(1);
    expect(validatorHonourRate(record({ conditionalUnchanged: 10, conditionalNotModified: 10 }))).toBe(1);
    // A host that sends an ETag and ignores it: a full page every time.
    expect(validatorHonourRate(record({ conditionalUnchanged: 98, conditionalNotModified: 0 }))).toBeCloseTo(0.02, 12);
    // Two ignored validators against the prior's two: even odds.
    expect(validatorHonourRate(record({ conditionalUnchanged: 2, conditionalNotModified: 0 }))).toBeCloseTo(0.5, 12);
    expect(validatorHonourRate(record({ conditionalUnchanged: 2, conditionalNotModified: 0 }), { priorWeight: 8 })).toBeCloseTo(0.8, 12);
  });

  it('prices a 304 by the host’s measured exchanges, the default before any', () => {
    expect(notModifiedBytesOf(undefined)).toBe(1_000);
    expect(notModifiedBytesOf(record({ notModifiedRequests: 4, notModifiedTransferBytes: 1_600 }))).toBe(400);
    expect(notModifiedBytesOf(record({}), { defaultNotModifiedBytes: 700 })).toBe(700);
  });

  it('refuses impossible records', () => {
    expect(() => validatorHonourRate(record({ conditionalUnchanged: 1, conditionalNotModified: 2 }))).toThrow(expect.objectContaining({ code: 'RECRAWL_COST_INPUT_INVALID' }));
    expect(() => validatorHonourRate(record({}), { priorWeight: 0 })).toThrow(expect.objectContaining({ code: 'RECRAWL_OPTIONS_INVALID' }));
  });

  it('makes a host that ignores its validators cost a full page for an unchanged copy', () => {
    const base = { expectedBytes: 100_000, conditional: true, hostHealth: 1, probabilityChanged: 0 };
    expect(visitCost({ ...base, validatorHonourRate: 1, notModifiedBytes: 500 })).toBeCloseTo(0.1, 12);
    expect(visitCost({ ...base, validatorHonourRate: 0, notModifiedBytes: 500 })).toBeCloseTo(1, 12);
    expect(visitCost({ ...base, validatorHonourRate: 0.5, notModifiedBytes: 20_000 })).toBeCloseTo(0.6, 12);
    expect(() => visitCost({ ...base, validatorHonourRate: 1.5 })).toThrow(expect.objectContaining({ code: 'RECRAWL_COST_INPUT_INVALID' }));
    expect(() => visitCost(base, { unit: 'pages' as never })).toThrow(expect.objectContaining({ code: 'RECRAWL_OPTIONS_INVALID' }));
  });
});

describe('pageTypeOfPath', () => {
  it.each([
    ['/', '/'],
    ['', '/'],
    ['/?q=1', '/'],
    ['/product/123', '/product/*'],
    ['/product/123?color=red', '/product/*'],
    ['/product/', '/product/*'],
    ['/page-3', '/page-#'],
    ['/page-12#top', '/page-#'],
    ['/2024/05/post', '/#/*'],
    ['/about', '/about'],
  ])('%s is %s', (path, type) => {
    expect(pageTypeOfPath(path)).toBe(type);
  });

  it('names listing pages by their role, whatever their path', () => {
    expect(pageTypeOfPath('/category/shoes?page=2', true)).toBe('listing');
  });
});
