import { DomainInputError } from '../input-error.js';

/** Stable codes for misuse of the failures module; match on these, not on messages. */
export type FailuresErrorCode =
  | 'FAILURES_UNKNOWN_TYPE'
  | 'FAILURES_ATTEMPT_INVALID'
  | 'FAILURES_RETRY_OPTIONS_INVALID'
  | 'FAILURES_RANDOM_INVALID'
  | 'FAILURES_LEDGER_OPTIONS_INVALID';

/**
 * Thrown for programming or configuration errors only (an attempt number of 0, a failure type
 * that is not in FETCH_FAILURE_TYPES, a `random` outside [0, 1)). A fetch outcome itself never
 * throws here: every outcome classifies to a type.
 */
export class FailuresInputError extends DomainInputError<FailuresErrorCode> {
  override readonly name = 'FailuresInputError';
}

