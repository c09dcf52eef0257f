/** An error the CLI prints as one clear message (no stack) and turns into an exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    /** 2: bad input (nothing started); 1: a service or operation failed. */
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
