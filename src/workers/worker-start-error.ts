/** Stable codes: match on these, not on messages. */
export type WorkerStartErrorCode =
  /** Temporal's runtime (logging, telemetry) could not be installed. */
  | 'WORKER_RUNTIME_INSTALL_FAILED'
  /** The Temporal SDK's metrics exporter could not bind its loopback port. */
  | 'WORKER_SDK_METRICS_BIND_FAILED'
  /** The metrics server could not listen on the address it was given. */
  | 'WORKER_METRICS_LISTEN_FAILED';

/** A worker that cannot start as configured; the message names what failed and what to do. */
export class WorkerStartError extends Error {
  override readonly name = 'WorkerStartError';

  constructor(
    readonly code: WorkerStartErrorCode,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
}
