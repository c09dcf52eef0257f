/** The part of the stack an error is about; `tools` means a binary is missing. */
export type StackService = 'temporal' | 'postgres' | 's3' | 'tools';

/** Stable codes: match on these, not on messages. */
export type StackErrorCode =
  /** A binary (temporal, minio, initdb, pg_ctl, postgres, runuser) was not found. */
  | 'STACK_TOOL_MISSING'
  /** A service process could not be started or exited while starting. */
  | 'STACK_START_FAILED'
  /** A service did not answer before the start timeout. */
  | 'STACK_NOT_READY'
  /** An external service (selected by environment) did not answer. */
  | 'STACK_UNREACHABLE'
  /** An environment variable or option is malformed. */
  | 'STACK_BAD_CONFIG'
  /** Another process holds the data folder's lock for too long. */
  | 'STACK_LOCKED';

export interface StackErrorDetails {
  code: StackErrorCode;
  service: StackService;
  /** What to do about it, for a person at a terminal. */
  hint: string;
  /** The service's log file, when there is one worth reading. */
  logFile?: string;
  cause?: unknown;
}

/** Raised by ensureStack/stopStack/stackStatus; the message names the service and the fix. */
export class StackError extends Error {
  readonly code: StackErrorCode;
  readonly service: StackService;
  readonly hint: string;
  readonly logFile: string | undefined;

  constructor(message: string, details: StackErrorDetails) {
    const log = details.logFile === undefined ? '' : ` (log: ${details.logFile})`;
    super(`${message}${log}. ${details.hint}`, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'StackError';
    this.code = details.code;
    this.service = details.service;
    this.hint = details.hint;
    this.logFile = details.logFile;
  }
}
