import { requireNumber } from './errors.js';

/** What a host's conditional requests showed, as the cost fold keeps it (host_costs). */
export interface HostValidatorRecord {
  /** Conditional requests whose content had not changed (a 304, or a 2xx with the same bytes). */
  conditionalUnchanged: number;
  /** Of those, the ones answered 304 Not Modified. */
  conditionalNotModified: number;
  /** 304 exchanges seen, and their bytes on the wire (sent and received). */
  notModifiedRequests: number;
  notModifiedTransferBytes: number;
}

/** How few observations weigh against the prior. */
export interface HostValidatorOptions {
  /**
   * Observations the prior is worth: a host is taken to honour its validators (as every host was
   * taken to before it was measured) until this many unchanged conditional requests say otherwise
   * at about equal weight. Default 2.
   */
  priorWeight: number;
  /** Bytes of a 304 exchange before one of the host's was measured. Default 1,000. */
  defaultNotModifiedBytes: number;
}

export const DEFAULT_HOST_VALIDATOR_OPTIONS: Readonly<HostValidatorOptions> = Object.freeze({ priorWeight: 2, defaultNotModifiedBytes: 1_000 });

/**
 * The host's validator honour rate in [0, 1]: the share of its conditional requests to unchanged
 * content answered 304 (docs/design.md, "Recrawl": some sites send validators and ignore them), smoothed towards
 * "honoured" by a prior worth `priorWeight` observations.
 */
export function validatorHonourRate(record: HostValidatorRecord | null | undefined, options: Partial<HostValidatorOptions> = {}): number {
  const { priorWeight } = { ...DEFAULT_HOST_VALIDATOR_OPTIONS, ...options };
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.priorWeight', priorWeight, { min: 0, minExclusive: true });
  if (!record) return 1;
  const unchanged = requireNumber('RECRAWL_COST_INPUT_INVALID', 'record.conditionalUnchanged', record.conditionalUnchanged, { min: 0 });
  const honoured = requireNumber('RECRAWL_COST_INPUT_INVALID', 'record.conditionalNotModified', record.conditionalNotModified, { min: 0, max: unchanged });
  return (honoured + priorWeight) / (unchanged + priorWeight);
}

/** What one of the host's 304 exchanges costs on the wire, as measured; the default before any was. */
export function notModifiedBytesOf(record: HostValidatorRecord | null | undefined, options: Partial<HostValidatorOptions> = {}): number {
  const { defaultNotModifiedBytes } = { ...DEFAULT_HOST_VALIDATOR_OPTIONS, ...options };
  if (!record || !(record.notModifiedRequests >= 0.5)) return defaultNotModifiedBytes;
  return requireNumber('RECRAWL_COST_INPUT_INVALID', 'record.notModifiedTransferBytes', record.notModifiedTransferBytes, { min: 0 }) / record.notModifiedRequests;
}
