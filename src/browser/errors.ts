/** Stable codes of the browser layer; the render activity maps each to its failure type (src/domain/failures). */
export type BrowserErrorCode =
  /** No executable where we look, or one that does not start: BrowserUnavailable. */
  | 'BROWSER_UNAVAILABLE'
  /** The browser or the page's renderer died, or the connection to it broke: RenderCrashed. */
  | 'BROWSER_CRASHED'
  /** The page did not reach DOMContentLoaded in time and nothing usable loaded: RenderTimeout. */
  | 'BROWSER_RENDER_TIMEOUT';

export class BrowserError extends Error {
  override readonly name = 'BrowserError';
  constructor(
    readonly code: BrowserErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
