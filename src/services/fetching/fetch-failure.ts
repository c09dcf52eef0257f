import { TypedFailure, countsTowardPoison, type FetchFailureType } from '../../domain/failures/index.js';
import { fetchRetryDelayMs, poisonCountOf } from '../../domain/fetching/index.js';
import { retryDelayScaleOf } from '../../config/politeness-config.js';
import { attemptsSinceLastSuccess, recordAttempt } from '../../storage/postgres/attempt-repository.js';
import type { FetchFailureDetails, FetchUrlInput } from '../../contracts/activities.js';
import type { ActivityDeps } from '../deps.js';

/**
 * Records the attempt, then builds the typed failure with its policy's retry decision
 * (fetchRetryDelayMs): a URL whose counted failures at the fetch stage reach the poison limit is
 * not retried, the workflow settles it and it is dead-lettered (docs/design.md, "Poison URLs").
 */
export async function fetchFailure(
  deps: ActivityDeps,
  input: FetchUrlInput,
  attemptNumber: number,
  type: FetchFailureType,
  message: string,
  details: FetchFailureDetails,
): Promise<TypedFailure<FetchFailureDetails>> {
  const transfer = details.sentBytes === undefined || details.receivedBytes === undefined ? undefined : { sentBytes: details.sentBytes, receivedBytes: details.receivedBytes };
  await recordAttempt(deps.pool, {
    fingerprint: input.fingerprint,
    stage: 'fetch',
    attemptKey: `${input.generation}/${input.attempt}/${attemptNumber}`,
    crawlId: input.crawlId,
    failureType: type,
    message,
    ...(transfer === undefined ? {} : { transfer }),
  });
  if (transfer !== undefined) deps.metrics?.requestTransferred('failed', transfer);
  if (countsTowardPoison(type)) {
    const attempts = await attemptsSinceLastSuccess(deps.pool, input.fingerprint, 'fetch');
    details.poisonCount = poisonCountOf(attempts.map((attempt) => attempt.failureType));
  }
  const nextDelayMs = fetchRetryDelayMs({
    type,
    attemptNumber,
    poisonCount: details.poisonCount,
    random: Math.random,
    delay: {
      floorMs: input.hostDelayMs,
      nowMs: details.finishedAtMs,
      scale: retryDelayScaleOf(input.politeness),
      ...(details.retryAfterAtMs === undefined ? {} : { retryAfterAtMs: details.retryAfterAtMs }),
    },
  });
  return new TypedFailure(type, message, { nonRetryable: nextDelayMs === undefined, ...(nextDelayMs === undefined ? {} : { nextRetryDelayMs: nextDelayMs }) }, details);
}
