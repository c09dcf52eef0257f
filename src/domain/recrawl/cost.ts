import { requireNumber } from './errors.js';

/** How a visit's bytes and its host's health become cost units for {@link visitCost}. */
export interface CostOptions {
  /** Bytes that cost one unit. Default 100_000 (a typical HTML page is about one unit). */
  bytesPerUnit: number;
  /** Floor on any visit's cost: a request holds a connection and a politeness slot whatever its size. Default 0.1. */
  minCostUnits: number;
  /** Extra cost per unit of lost host health: cost × (1 + penalty × (1 - health)). Default 4 (a host at health 0 costs 5×). */
  hostHealthPenalty: number;
  /** Bytes of a 304 Not Modified exchange (request and response headers). Default 1_000. */
  notModifiedBytes: number;
}

export const DEFAULT_COST_OPTIONS: Readonly<CostOptions> = Object.freeze({
  bytesPerUnit: 100_000,
  minCostUnits: 0.1,
  hostHealthPenalty: 4,
  notModifiedBytes: 1_000,
});

/** What a planned visit is expected to transfer, and the state of its host. */
export interface VisitCostInput {
  /** Bytes of a full response, from this URL's last real fetch (or its page type's mean). */
  expectedBytes: number;
  /** Whether the request carries validators (If-None-Match / If-Modified-Since) the host is known to honour. */
  conditional: boolean;
  /** Host health score in [0, 1], 1 healthy; falling health raises the effective cost (001). */
  hostHealth: number;
  /**
   * Chance the page changed since the last visit, for a conditional request: the expected bytes
   * are then (1 - p) × notModifiedBytes + p × expectedBytes. Omitted: a conditional request is
   * taken to be a likely 304 and costs notModifiedBytes.
   */
  probabilityChanged?: number;
}

/**
 * Cost of one visit in units (001): bytes / bytesPerUnit, at least minCostUnits, times a
 * host-health multiplier. A conditional request that will likely get a 304 costs only its
 * headers, which is why validators come before full fetches.
 */
export function visitCost(input: VisitCostInput, options: Partial<CostOptions> = {}): number {
  const { bytesPerUnit, minCostUnits, hostHealthPenalty, notModifiedBytes } = { ...DEFAULT_COST_OPTIONS, ...options };
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.bytesPerUnit', bytesPerUnit, { min: 0, minExclusive: true });
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.minCostUnits', minCostUnits, { min: 0, minExclusive: true });
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.hostHealthPenalty', hostHealthPenalty, { min: 0 });
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.notModifiedBytes', notModifiedBytes, { min: 0 });
  const fullBytes = requireNumber('RECRAWL_COST_INPUT_INVALID', 'input.expectedBytes', input.expectedBytes, { min: 0 });
  const health = requireNumber('RECRAWL_COST_INPUT_INVALID', 'input.hostHealth', input.hostHealth, { min: 0, max: 1 });
  let bytes = fullBytes;
  if (input.conditional) {
    const p = input.probabilityChanged === undefined ? 0 : requireNumber('RECRAWL_COST_INPUT_INVALID', 'input.probabilityChanged', input.probabilityChanged, { min: 0, max: 1 });
    bytes = (1 - p) * Math.min(notModifiedBytes, fullBytes) + p * fullBytes;
  }
  return Math.max(minCostUnits, bytes / bytesPerUnit) * (1 + hostHealthPenalty * (1 - health));
}
