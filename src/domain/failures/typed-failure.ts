/**
 * A failure of one of our types (failure-policies.ts) as services raise it: the type, what the
 * retry decision is, and the details the workflow reads back. Services stay free of Temporal;
 * the activity that ran them hands it to Temporal as an ApplicationFailure of the same type
 * (src/activities/support/temporal-failure.ts), and a fetch burst, which calls the fetch service
 * in-process, reads it as it is.
 */
export interface TypedFailureRetry {
  /** No retry at all: the policy is spent or the type is terminal. */
  nonRetryable: boolean;
  /** The wait before the next try when the service decided it (the failure type's policy); else Temporal's retry policy decides. */
  nextRetryDelayMs?: number;
}

export class TypedFailure<Details = unknown> extends Error {
  override readonly name = 'TypedFailure';
  constructor(
    /** A failure type of FAILURE_POLICIES (ConnectionFailed, StorageUnavailable, ...). */
    readonly type: string,
    message: string,
    readonly retry: TypedFailureRetry,
    /** What the workflow reads back (ApplicationFailure's first detail). */
    readonly details?: Details,
  ) {
    super(message);
  }
}
