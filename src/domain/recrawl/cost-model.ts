import { RecrawlInputError, requireNumber } from './errors.js';

/**
 * How the operator pays for fetches (docs/design.md, "Cost per detected change": "know what a fetch really costs"):
 * - 'gateway-bytes': every byte through a proxy gateway, both ways, heads included, failed
 *   requests too (residential proxies bill so); smaller responses and 304s save money;
 * - 'successful-requests': one charge per successful response (scraping API credits), failures
 *   free; only fewer fetches save money, a 304 costs as much as a page;
 * - 'direct-bytes': the crawler's own bandwidth, bytes as for a gateway.
 */
export type CostModelKind = 'gateway-bytes' | 'successful-requests' | 'direct-bytes';

export const COST_MODEL_KINDS: readonly CostModelKind[] = Object.freeze(['gateway-bytes', 'successful-requests', 'direct-bytes']);

/** A crawl's or a schedule's cost model. */
export interface CostModel {
  kind: CostModelKind;
  /**
   * Price of one unit, in the operator's currency: per GB (10^9 bytes) for the byte models, per
   * successful request for 'successful-requests'. 0: figures in bytes and requests only. Default 0.
   */
  price: number;
}

/** What a set of requests moved and how many succeeded: the inputs of a bill. */
export interface RequestTotals {
  /** Bytes sent and received, heads included, failed requests too. */
  transferBytes: number;
  /** Requests answered with a response the crawler could use: 2xx, 304, 3xx. */
  successfulRequests: number;
}

/** What the model charges for each visit: bytes, or successful requests. */
export function costUnitOf(model: CostModel): 'bytes' | 'requests' {
  return model.kind === 'successful-requests' ? 'requests' : 'bytes';
}

/** The bill for `totals` under `model`, in its currency; null when the model has no price. */
export function amountOf(model: CostModel, totals: RequestTotals): number | null {
  validateCostModel(model);
  requireNumber('RECRAWL_COST_INPUT_INVALID', 'totals.transferBytes', totals.transferBytes, { min: 0 });
  requireNumber('RECRAWL_COST_INPUT_INVALID', 'totals.successfulRequests', totals.successfulRequests, { min: 0 });
  if (model.price === 0) return null;
  return costUnitOf(model) === 'requests' ? model.price * totals.successfulRequests : (model.price * totals.transferBytes) / 1e9;
}

/** The model a crawl gets when it names none: through proxies a gateway bills bytes, direct the bandwidth is ours. */
export function defaultCostModel(proxied: boolean): CostModel {
  return { kind: proxied ? 'gateway-bytes' : 'direct-bytes', price: 0 };
}

/** Checks a cost model; throws RECRAWL_OPTIONS_INVALID naming the field. */
export function validateCostModel(model: CostModel): CostModel {
  if (model === null || typeof model !== 'object' || !COST_MODEL_KINDS.includes(model.kind)) {
    throw new RecrawlInputError('RECRAWL_OPTIONS_INVALID', 'costModel.kind', (model as { kind?: unknown } | null)?.kind, `use one of ${COST_MODEL_KINDS.join(', ')}`);
  }
  requireNumber('RECRAWL_OPTIONS_INVALID', 'costModel.price', model.price, { min: 0 });
  return model;
}
