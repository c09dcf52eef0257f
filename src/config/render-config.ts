/**
 * How one crawl renders pages built by JavaScript (docs/rendering.md). Stored with the crawl; a
 * crawl stored before rendering existed has none and renders nothing.
 */
import {
  DEFAULT_RENDER_BUDGET,
  RenderInputError,
  isRenderMode,
  normalizeAllowedOrigin,
  normalizeRenderRule,
  validateRenderBudget,
  type RenderBudget,
  type RenderMode,
} from '../domain/render/index.js';

export interface CrawlRenderConfig {
  /** never, auto or always. Default 'never' here; `crawler crawl` makes it 'auto' when a browser is installed. */
  mode: RenderMode;
  /** Hosts or URL prefixes rendered in auto whatever their HTML says; their hash routes are rendered too. Default []. */
  allow: string[];
  /** Hosts or URL prefixes never rendered. Default []. */
  deny: string[];
  /** Origins besides a page's own its subresources may come from, each paced as its own host. Default []. */
  allowOrigins: string[];
  /** Pages and browser CPU per crawl, renders per host. Default DEFAULT_RENDER_BUDGET. */
  budget: RenderBudget;
  /** A page must reach DOMContentLoaded within this, ms. Default 15,000. */
  navigationTimeoutMs: number;
  /** After DOMContentLoaded, the longest a render waits for the page to settle, ms. Default 3,000. */
  settleMs: number;
}

export const DEFAULT_RENDER_CONFIG: Readonly<CrawlRenderConfig> = Object.freeze({
  mode: 'never',
  allow: [],
  deny: [],
  allowOrigins: [],
  budget: DEFAULT_RENDER_BUDGET,
  navigationTimeoutMs: 15_000,
  settleMs: 3000,
});

/** The render settings of a crawl record, defaults filled (crawls stored before rendering: never). */
export function renderConfigOf(config: { render?: Partial<CrawlRenderConfig> }): CrawlRenderConfig {
  return { ...DEFAULT_RENDER_CONFIG, ...(config.render ?? {}), budget: { ...DEFAULT_RENDER_BUDGET, ...(config.render?.budget ?? {}) } };
}

/** Fills defaults and validates; throws RenderInputError naming the field. */
export function resolveRenderConfig(partial: Partial<CrawlRenderConfig> | undefined): CrawlRenderConfig {
  const config = renderConfigOf({ ...(partial === undefined ? {} : { render: partial }) });
  if (!isRenderMode(config.mode)) throw new RenderInputError('RENDER_MODE_INVALID', 'render.mode', config.mode, 'use never, auto or always');
  config.allow = config.allow.map((rule, i) => normalizeRenderRule(rule, `render.allow[${i}]`));
  config.deny = config.deny.map((rule, i) => normalizeRenderRule(rule, `render.deny[${i}]`));
  config.allowOrigins = [...new Set(config.allowOrigins.map((origin, i) => normalizeAllowedOrigin(origin, `render.allowOrigins[${i}]`)))];
  validateRenderBudget(config.budget, 'render.budget');
  for (const field of ['navigationTimeoutMs', 'settleMs'] as const) {
    const value = config[field];
    if (!Number.isSafeInteger(value) || value < 100 || value > 120_000) throw new RenderInputError('RENDER_OPTION_INVALID', `render.${field}`, value, 'pass an integer from 100 to 120000');
  }
  return config;
}
