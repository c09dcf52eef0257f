import { DomainInputError } from '../input-error.js';

/** Stable codes for bad input to the frontier's math; match on these, not on messages. */
export type FrontierErrorCode =
  | 'FRONTIER_BLOOM_SIZING_INVALID'
  | 'FRONTIER_BLOOM_STATE_INVALID'
  | 'FRONTIER_FINGERPRINT_INVALID'
  | 'FRONTIER_PRIORITY_INPUT_INVALID'
  | 'FRONTIER_TIER_INPUT_INVALID'
  | 'FRONTIER_ADMISSION_INPUT_INVALID'
  | 'FRONTIER_RATE_METER_INVALID'
  | 'FRONTIER_BUDGET_INVALID'
  | 'FRONTIER_CAPACITY_INPUT_INVALID'
  | 'FRONTIER_WAKE_INPUT_INVALID';

/**
 * Thrown when a frontier function gets input it cannot give a meaningful answer for.
 * These inputs come from our own configuration and state, so the error is a bug or a
 * misconfiguration to fix, never something to retry.
 */
export class FrontierInputError extends DomainInputError<FrontierErrorCode> {
  override readonly name = 'FrontierInputError';
}

