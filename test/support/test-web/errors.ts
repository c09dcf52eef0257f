/** Stable codes for everything the test web refuses; match on `code`, not on the message. */
export type TestWebErrorCode =
  | 'TEST_WEB_INVALID_HOST'
  | 'TEST_WEB_DUPLICATE_HOST'
  | 'TEST_WEB_NO_HOSTS'
  | 'TEST_WEB_UNKNOWN_HOST'
  | 'TEST_WEB_INVALID_OPTION'
  | 'TEST_WEB_ADDRESS_SPACE_EXHAUSTED'
  | 'TEST_WEB_LISTEN_FAILED';

/** A test web misconfiguration or start-up failure; the message names the input and the fix. */
export class TestWebError extends Error {
  override readonly name = 'TestWebError';

  constructor(
    readonly code: TestWebErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
