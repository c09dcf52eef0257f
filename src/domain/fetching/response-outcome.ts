import { classifyHttpStatus, classifyTransportError, type FetchFailureType, type TransportErrorCode } from '../failures/index.js';
import { isSkippedContentType } from '../url/index.js';

/** What a fetch makes of a response, before it stores or records anything. */
export type FetchResponseOutcome =
  | { kind: 'failure'; type: FetchFailureType }
  | { kind: 'not-modified' }
  | { kind: 'redirect' }
  | { kind: 'fetched' };

/**
 * Whether the body of a response with `status` and `contentType` is kept: only a 2xx of an
 * accepted type; any other body is drained unread.
 */
export function keepsBodyOf(status: number, contentType: string | undefined, acceptedTypes: readonly string[]): boolean {
  return classifyHttpStatus(status).kind === 'success' && !isSkippedContentType(contentType ?? '', acceptedTypes);
}

/**
 * A response's outcome: a failure type for a 4xx, 5xx or invalid status, and for a 2xx whose body
 * was not kept (a content type not crawled: UnsupportedContentType).
 */
export function fetchResponseOutcomeOf(status: number, bodyKept: boolean): FetchResponseOutcome {
  const statusClass = classifyHttpStatus(status);
  if (statusClass.kind === 'failure') return statusClass;
  if (statusClass.kind !== 'success') return statusClass;
  return bodyKept ? { kind: 'fetched' } : { kind: 'failure', type: 'UnsupportedContentType' };
}

/** Transport failures that happen before any byte reaches the host: the host was not asked. */
const NOT_REQUESTED_CODES: ReadonlySet<TransportErrorCode> = new Set(['HTTP_DNS_NOT_FOUND', 'HTTP_DNS_TEMPORARY_FAILURE', 'HTTP_PRIVATE_NETWORK_REFUSED']);

/** A request that failed below HTTP: its failure type, and whether the host received a request. */
export function transportFailureOf(code: TransportErrorCode): { type: FetchFailureType; requested: boolean } {
  return { type: classifyTransportError(code), requested: !NOT_REQUESTED_CODES.has(code) };
}
