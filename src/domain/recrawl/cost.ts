import { RecrawlInputError, requireNumber } from './errors.js';

/** How a visit's bytes and its host's health become cost units for {@link visitCost}. */
export interface CostOptions {
  /** Bytes that cost one unit. Default 100_000 (a typical HTML page is about one unit). */
  bytesPerUnit: number;
  /** Floor on any visit's cost: a request holds a connection and a politeness slot whatever its size. Default 0.1. */
  minCostUnits: number;
  /** Extra cost per unit of lost host health: cost × (1 + penalty × (1 - health)). Default 4 (a host at health 0 costs 5×). */
  hostHealthPenalty: number;
  /** Bytes of a 304 Not Modified exchange (request and response headers), for a host whose own were not measured. Default 1_000. */
  notModifiedBytes: number;
  /**
   * What a visit is charged by (the cost model's unit, costUnitOf): 'bytes', its expected bytes on
   * the wire; 'requests', one unit per visit whatever its size (API credits: a 304 costs as much as
   * a page, so validators save nothing). Default 'bytes'.
   */
  unit: 'bytes' | 'requests';
}

export const DEFAULT_COST_OPTIONS: Readonly<CostOptions> = Object.freeze({
  bytesPerUnit: 100_000,
  minCostUnits: 0.1,
  hostHealthPenalty: 4,
  notModifiedBytes: 1_000,
  unit: 'bytes',
});

/** What a planned visit is expected to transfer, and the state of its host. */
export interface VisitCostInput {
  /** Bytes of a full response, from this URL's last real fetch (or its page type's mean). */
  expectedBytes: number;
  /** Whether the request carries validators (If-None-Match / If-Modified-Since) the host is known to honour. */
  conditional: boolean;
  /** Host health score in [0, 1], 1 healthy; falling health raises the effective cost (docs/design.md, "Cost per detected change"). */
  hostHealth: number;
  /**
   * Chance the page changed since the last visit, for a conditional request: the expected bytes
   * are then (1 - p) × (h × notModifiedBytes + (1 - h) × expectedBytes) + p × expectedBytes, h the
   * host's validator honour rate. Omitted: a conditional request is taken to be a likely 304.
   */
  probabilityChanged?: number;
  /** Share of the host's conditional requests to unchanged content answered 304 (validatorHonourRate). Default 1: honoured. */
  validatorHonourRate?: number;
  /** Bytes of one of the host's 304 exchanges as measured (notModifiedBytesOf). Default options.notModifiedBytes. */
  notModifiedBytes?: number;
}

/**
 * Cost of one visit in units (docs/design.md, "Cost per detected change"): its expected bytes / bytesPerUnit, at least minCostUnits (or
 * one unit a visit under unit 'requests'), times a host-health multiplier. A conditional request
 * that will likely get a 304 costs only its heads, as measured for its host, and only as often as
 * the host honours its validators: a host that sends an ETag and ignores it is priced at full pages.
 */
export function visitCost(input: VisitCostInput, options: Partial<CostOptions> = {}): number {
  const { bytesPerUnit, minCostUnits, hostHealthPenalty, notModifiedBytes, unit } = { ...DEFAULT_COST_OPTIONS, ...options };
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.bytesPerUnit', bytesPerUnit, { min: 0, minExclusive: true });
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.minCostUnits', minCostUnits, { min: 0, minExclusive: true });
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.hostHealthPenalty', hostHealthPenalty, { min: 0 });
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.notModifiedBytes', notModifiedBytes, { min: 0 });
  if (unit !== 'bytes' && unit !== 'requests') throw new RecrawlInputError('RECRAWL_OPTIONS_INVALID', 'options.unit', unit, "pass 'bytes' or 'requests'");
  const fullBytes = requireNumber('RECRAWL_COST_INPUT_INVALID', 'input.expectedBytes', input.expectedBytes, { min: 0 });
  const health = requireNumber('RECRAWL_COST_INPUT_INVALID', 'input.hostHealth', input.hostHealth, { min: 0, max: 1 });
  const healthMultiplier = 1 + hostHealthPenalty * (1 - health);
  if (unit === 'requests') return healthMultiplier;
  let bytes = fullBytes;
  if (input.conditional) {
    const p = input.probabilityChanged === undefined ? 0 : requireNumber('RECRAWL_COST_INPUT_INVALID', 'input.probabilityChanged', input.probabilityChanged, { min: 0, max: 1 });
    const honoured = input.validatorHonourRate === undefined ? 1 : requireNumber('RECRAWL_COST_INPUT_INVALID', 'input.validatorHonourRate', input.validatorHonourRate, { min: 0, max: 1 });
    const hostNotModifiedBytes = input.notModifiedBytes === undefined ? notModifiedBytes : requireNumber('RECRAWL_COST_INPUT_INVALID', 'input.notModifiedBytes', input.notModifiedBytes, { min: 0 });
    const unchangedBytes = honoured * Math.min(hostNotModifiedBytes, fullBytes) + (1 - honoured) * fullBytes;
    bytes = (1 - p) * unchangedBytes + p * fullBytes;
  }
  return Math.max(minCostUnits, bytes / bytesPerUnit) * healthMultiplier;
}
