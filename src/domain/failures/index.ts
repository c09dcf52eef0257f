export { TRANSPORT_ERROR_CODES } from './transport-error-code.js';
export type { TransportErrorCode } from './transport-error-code.js';
export { FETCH_FAILURE_TYPES, isFetchFailureType } from './fetch-failure-type.js';
export type { FetchFailureType } from './fetch-failure-type.js';
export {
  DEFAULT_JITTER,
  FAILURE_POLICIES,
  HOST_HOLD_RECHECK_MS,
  NOT_FOUND_RECHECK_MS,
  POISON_ATTEMPT_LIMIT,
  failurePolicyFor,
  isTerminal,
  lookupFailurePolicy,
} from './failure-policies.js';
export type { FailurePolicy, HostEffect, JitterRange, RetryLayer } from './failure-policies.js';
export { REDIRECT_STATUSES, classifyHttpStatus, failureTypeOfStatus } from './classify-http-status.js';
export type { HttpStatusClass } from './classify-http-status.js';
export { classifyTransportError } from './classify-transport-error.js';
export { proxyConnectFailureCode } from './classify-proxy-connect.js';
export type { ProxyConnectAnswer, ProxyConnectFailure } from './classify-proxy-connect.js';
export { backoffDelayMs, jitterMultiplier, retryDelayMs } from './retry-delay.js';
export type { RetryDelayOptions } from './retry-delay.js';
export { fetchActivityRetryShape } from './activity-retry-shape.js';
export type { ActivityRetryShape } from './activity-retry-shape.js';
export {
  MAX_FAILURE_DETAIL_CHARS,
  POISON_STAGES,
  countsTowardPoison,
  emptyPoisonLedger,
  recordStageFailure,
  recordStageSuccess,
} from './poison-ledger.js';
export type { PoisonLedger, PoisonLedgerOptions, PoisonStage, StageFailureRecord, StageFailureVerdict } from './poison-ledger.js';
export { failurePoliciesMarkdownTable, formatDurationMs } from './failure-policy-table.js';
export { FailuresInputError } from './errors.js';
export { TypedFailure } from './typed-failure.js';
export type { TypedFailureRetry } from './typed-failure.js';
export type { FailuresErrorCode } from './errors.js';
