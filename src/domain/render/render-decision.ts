import { RenderInputError } from './errors.js';
import type { RenderFeatures } from './render-features.js';
import { renderRuleFor, type RenderMode, type RenderRules } from './render-mode.js';
import type { RenderVerdict } from './render-verdict.js';

/**
 * Why a page is rendered. Strong evidence (an empty application root, a <noscript> asking for
 * JavaScript, an allowlisted site, `always`) renders on its own; weak evidence (thin text and few
 * links with scripts and a framework marker) renders unless the page's template is known static.
 */
export type RenderReason =
  | 'mode-always'
  | 'allowlisted'
  | 'empty-app-root'
  | 'noscript-asks-for-javascript'
  | 'thin-page-with-framework'
  | 'thin-page-with-scripts'
  | 'template-needs-render'
  /** A sample of a template judged static, rendered to check the verdict still holds. */
  | 'verdict-sample'
  /** A hash route of an allowlisted single-page application (a virtual route of a rendered page). */
  | 'hash-route';

/** Why a page is not rendered. */
export type NoRenderReason =
  | 'mode-never'
  | 'denylisted'
  /** The loop guard: a rendered DOM is never sent to render again. */
  | 'already-rendered'
  | 'no-scripts'
  | 'server-rendered'
  | 'template-static';

export type RenderDecision =
  /** `sampleBothWays`: compare the rendered result with the HTTP one and train the template's verdict. */
  | { render: true; reason: RenderReason; sampleBothWays: boolean }
  | { render: false; reason: NoRenderReason };

/** The thresholds of `auto`. */
export interface RenderHeuristicOptions {
  /** A page with less main text than this, in characters, is thin. Default 300. */
  thinTextChars: number;
  /** A page with fewer links than this has few. Default 3. */
  fewLinks: number;
  /** With scripts, no marker and next to no text (below this), no links: rendered as weak evidence too. Default 40. */
  bareTextChars: number;
  /** Share of pages decided without a verdict that are rendered both ways to train one, in [0, 1]. Default 0.25. */
  sampleShare: number;
  /** Share of pages of a template with a verdict that are checked both ways again, in [0, 1]. Default 0.02. */
  recheckShare: number;
}

export const DEFAULT_RENDER_HEURISTICS: Readonly<RenderHeuristicOptions> = Object.freeze({
  thinTextChars: 300,
  fewLinks: 3,
  bareTextChars: 40,
  sampleShare: 0.25,
  recheckShare: 0.02,
});

export interface RenderDecisionInput {
  mode: RenderMode;
  rules: RenderRules;
  /** The page's URL (absolute, canonical). */
  url: string;
  features: RenderFeatures;
  /** 'rendered': the features are a rendered DOM's (the loop guard never renders those again). */
  source: 'http' | 'rendered';
  /** The stored verdict of the page's host and path template, if any. */
  verdict?: RenderVerdict;
  /** A uniform draw in [0, 1) for sampling (the caller's injected randomness). */
  draw: number;
}

/**
 * Whether to render one page, and why: the loop guard, deny rules and `never` first; then
 * allow rules and `always`; in `auto`, strong evidence, the template's verdict, weak evidence.
 * Pure: the same input gives the same decision.
 */
export function decideRender(input: RenderDecisionInput, options: RenderHeuristicOptions = DEFAULT_RENDER_HEURISTICS): RenderDecision {
  validateHeuristics(options);
  if (input.source === 'rendered') return { render: false, reason: 'already-rendered' };
  if (input.mode === 'never') return { render: false, reason: 'mode-never' };
  const rule = renderRuleFor(input.rules, input.url);
  if (rule === 'deny') return { render: false, reason: 'denylisted' };
  if (rule === 'allow') return { render: true, reason: 'allowlisted', sampleBothWays: false };
  if (input.mode === 'always') return { render: true, reason: 'mode-always', sampleBothWays: false };

  const { features } = input;
  if (features.scriptCount === 0) return { render: false, reason: 'no-scripts' };
  const verdict = input.verdict?.verdict;
  const recheck = verdict !== undefined && input.draw < options.recheckShare;
  if (features.emptyAppRoot) return { render: true, reason: 'empty-app-root', sampleBothWays: recheck };
  if (features.noscriptAsksForJavaScript) return { render: true, reason: 'noscript-asks-for-javascript', sampleBothWays: recheck };

  const thin = features.textLength < options.thinTextChars && features.linkCount < options.fewLinks;
  const weakReason: RenderReason | undefined =
    thin && features.frameworkMarkers.length > 0
      ? 'thin-page-with-framework'
      : features.textLength < options.bareTextChars && features.linkCount === 0
        ? 'thin-page-with-scripts'
        : undefined;
  if (verdict === 'render') return { render: true, reason: weakReason ?? 'template-needs-render', sampleBothWays: recheck };
  if (verdict === 'static') {
    // A static template's pages are rendered now and then to check the verdict, never trained by an HTTP run alone.
    return weakReason !== undefined && recheck ? { render: true, reason: 'verdict-sample', sampleBothWays: true } : { render: false, reason: 'template-static' };
  }
  if (weakReason !== undefined) return { render: true, reason: weakReason, sampleBothWays: input.draw < options.sampleShare };
  return { render: false, reason: 'server-rendered' };
}

function validateHeuristics(options: RenderHeuristicOptions): void {
  for (const field of ['thinTextChars', 'fewLinks', 'bareTextChars'] as const) {
    const value = options[field];
    if (!Number.isFinite(value) || value < 0) throw new RenderInputError('RENDER_OPTION_INVALID', `options.${field}`, value, 'pass a finite number >= 0');
  }
  for (const field of ['sampleShare', 'recheckShare'] as const) {
    const value = options[field];
    if (!(value >= 0 && value <= 1)) throw new RenderInputError('RENDER_OPTION_INVALID', `options.${field}`, value, 'pass a share in [0, 1]');
  }
}
