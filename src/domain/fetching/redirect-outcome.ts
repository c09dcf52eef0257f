import type { FetchFailureType } from '../failures/index.js';
import type { RedirectDecision } from '../url/index.js';

/** What a redirect response's fetch records, reports and throws, from its decision and the target's registration. */
export interface RedirectOutcome {
  /** The fetch record's outcome. */
  recordOutcome: 'redirect' | 'RedirectLoop' | 'TooManyRedirects' | 'redirect-invalid';
  /** The result's decision: a followed target its registration refused says why. */
  decision: 'follow' | 'invalid' | 'loop' | 'too-many-hops' | 'out-of-scope' | 'robots-disallowed' | 'rejected';
  /** A loop or an endless chain is a terminal failure of the URL (docs/design.md, "Crawler traps"). */
  failureType?: FetchFailureType;
}

/** A redirect target's registration refused, by its refusal code; undefined when it was registered. */
export type RedirectTargetRefusal = { code: string } | undefined;

export function redirectOutcomeOf(decision: RedirectDecision['kind'], refusal: RedirectTargetRefusal): RedirectOutcome {
  switch (decision) {
    case 'follow':
      return { recordOutcome: 'redirect', decision: refusal === undefined ? 'follow' : refusedTargetDecision(refusal.code) };
    case 'loop':
      return { recordOutcome: 'RedirectLoop', decision: 'loop', failureType: 'RedirectLoop' };
    case 'too-many-hops':
      return { recordOutcome: 'TooManyRedirects', decision: 'too-many-hops', failureType: 'TooManyRedirects' };
    case 'invalid':
      return { recordOutcome: 'redirect-invalid', decision: 'invalid' };
  }
}

function refusedTargetDecision(code: string): RedirectOutcome['decision'] {
  if (code.startsWith('out-of-scope')) return 'out-of-scope';
  return code === 'robots-disallowed' ? 'robots-disallowed' : 'rejected';
}
