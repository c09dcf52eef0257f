import { RenderInputError } from './errors.js';

/**
 * Whether a crawl renders pages in a browser: `never`, `auto` (the decision reads each page's
 * initial HTML, docs/rendering.md) or `always` (every HTML page).
 */
export type RenderMode = 'never' | 'auto' | 'always';
export const RENDER_MODES: readonly RenderMode[] = ['never', 'auto', 'always'];

export function isRenderMode(value: unknown): value is RenderMode {
  return typeof value === 'string' && (RENDER_MODES as readonly string[]).includes(value);
}

/**
 * Where rendering is forced on or off, whatever the page looks like. Each rule is a host name
 * (`app.example.com`, which covers every page of that host on any port) or a URL prefix
 * (`https://example.com/app/`). The most specific rule that covers a URL wins (a prefix beats a
 * host, a longer prefix a shorter one); between an allow and a deny rule of the same text, deny.
 */
export interface RenderRules {
  /** Render these pages in `auto` (not in `never`). Default none. */
  allow: readonly string[];
  /** Never render these pages, in any mode. Default none. */
  deny: readonly string[];
}

export const NO_RENDER_RULES: Readonly<RenderRules> = Object.freeze({ allow: [], deny: [] });

/** A rule as the crawl stores it: a lower-case host, or an absolute http(s) prefix without its fragment. Throws RENDER_RULE_INVALID. */
export function normalizeRenderRule(rule: string, field: string): string {
  const text = typeof rule === 'string' ? rule.trim() : '';
  if (/^[a-z0-9.-]+$/i.test(text) && !text.startsWith('.') && !text.endsWith('.')) return text.toLowerCase();
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw new RenderInputError('RENDER_RULE_INVALID', field, rule, 'give a host (app.example.com) or an http(s) URL prefix (https://example.com/app/)');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new RenderInputError('RENDER_RULE_INVALID', field, rule, 'a prefix must be an http(s) URL');
  }
  if (parsed.username !== '' || parsed.password !== '') throw new RenderInputError('RENDER_RULE_INVALID', field, rule, 'a prefix must not carry credentials');
  parsed.hash = '';
  return parsed.href;
}

/** Which list covers `url`, by its most specific rule: 'allow', 'deny' or undefined. `url` is an absolute http(s) URL. */
export function renderRuleFor(rules: RenderRules, url: string): 'allow' | 'deny' | undefined {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
  const specificity = (rule: string): number => {
    if (!rule.includes('/')) return rule === host ? 1 : -1;
    return url.startsWith(rule) ? 2 + rule.length : -1;
  };
  let best: { list: 'allow' | 'deny'; score: number } | undefined;
  for (const list of ['allow', 'deny'] as const) {
    for (const rule of rules[list]) {
      const score = specificity(rule);
      if (score < 0) continue;
      if (best === undefined || score > best.score || (score === best.score && list === 'deny')) best = { list, score };
    }
  }
  return best?.list;
}
