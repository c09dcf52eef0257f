import type { FetchFailureType } from './fetch-failure-type.js';

/** What a final HTTP status means to the crawler: go on to parse, reuse the stored copy, follow, or fail. */
export type HttpStatusClass =
  | { kind: 'success' }
  | { kind: 'not-modified' }
  | { kind: 'redirect' }
  | { kind: 'failure'; type: FetchFailureType };

/** Statuses whose Location we follow (RFC 9110 §15.4). */
export const REDIRECT_STATUSES: readonly number[] = Object.freeze([301, 302, 303, 307, 308]);

const SUCCESS: HttpStatusClass = Object.freeze({ kind: 'success' });
const NOT_MODIFIED: HttpStatusClass = Object.freeze({ kind: 'not-modified' });
const REDIRECT: HttpStatusClass = Object.freeze({ kind: 'redirect' });

function failure(type: FetchFailureType): HttpStatusClass {
  return { kind: 'failure', type };
}

/**
 * Classifies the final status of a response (docs/design.md, "Failure types and retries"). Decisions where the table is silent:
 * - Every 2xx is success, 204 and 206 included: 204 is an empty document; we never send Range,
 *   so a 206 is the server's choice and its body is what we got.
 * - 300, 305 and 306 are ClientError: 300 asks for content negotiation we do not do (its Location
 *   is optional), 305 Use Proxy is deprecated and following it would let a server reroute us, 306
 *   is unused. Unassigned 3xx go the same way: we cannot know how to follow them.
 * - 1xx as a final status, and anything outside 100..599 or not an integer, is InvalidResponse:
 *   interim responses never reach us, so the server is broken.
 * - Other 5xx (501, 505, ...) are ServerError: limited retries, and the breaker handles a host
 *   that keeps failing.
 */
export function classifyHttpStatus(status: number): HttpStatusClass {
  if (!Number.isInteger(status) || status < 100 || status > 599) return failure('InvalidResponse');
  if (status < 200) return failure('InvalidResponse');
  if (status < 300) return SUCCESS;
  if (status === 304) return NOT_MODIFIED;
  if (REDIRECT_STATUSES.includes(status)) return REDIRECT;
  if (status < 400) return failure('ClientError');
  if (status === 404 || status === 410) return failure('NotFound');
  if (status === 408) return failure('RequestTimeout');
  if (status === 429) return failure('TooManyRequests');
  if (status < 500) return failure('ClientError');
  if (status === 503) return failure('ServiceUnavailable');
  return failure('ServerError');
}

/** The failure type of a status, or undefined when the status is success, not-modified or a redirect. */
export function failureTypeOfStatus(status: number): FetchFailureType | undefined {
  const outcome = classifyHttpStatus(status);
  return outcome.kind === 'failure' ? outcome.type : undefined;
}
