import { DomainInputError } from '../input-error.js';

/** Stable codes for misuse of the render module; match on these, not on messages. */
export type RenderErrorCode = 'RENDER_MODE_INVALID' | 'RENDER_RULE_INVALID' | 'RENDER_OPTION_INVALID' | 'RENDER_BUDGET_INVALID' | 'RENDER_ORIGIN_INVALID';

/**
 * Thrown for configuration or programming errors only (an unknown mode, a rule that is not a
 * host or an http(s) prefix, a negative budget). Untrusted input (a page, a response header)
 * never throws here: it is read or ignored.
 */
export class RenderInputError extends DomainInputError<RenderErrorCode> {
  override readonly name = 'RenderInputError';
}
