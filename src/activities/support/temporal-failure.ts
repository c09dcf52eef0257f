// The activities' one mapping of our failures to Temporal's: a TypedFailure a service raised
// becomes an ApplicationFailure of the same type, with the retry decision the service made and
// its details for the workflow. Anything else passes as it is (Temporal's retry policy decides).
import { ApplicationFailure } from '@temporalio/activity';
import { TypedFailure } from '../../domain/failures/index.js';

export function toTemporalFailure(error: unknown): unknown {
  if (!(error instanceof TypedFailure)) return error;
  return ApplicationFailure.create({
    type: error.type,
    message: error.message,
    nonRetryable: error.retry.nonRetryable,
    ...(error.retry.nextRetryDelayMs === undefined ? {} : { nextRetryDelay: error.retry.nextRetryDelayMs }),
    ...(error.details === undefined ? {} : { details: [error.details] }),
  });
}

/** `run`, its TypedFailure thrown as Temporal's ApplicationFailure. */
export async function withTemporalFailures<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw toTemporalFailure(error);
  }
}
