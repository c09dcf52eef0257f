import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RENDER_HEURISTICS,
  NO_RENDER_RULES,
  RenderInputError,
  decideRender,
  type RenderDecisionInput,
  type RenderFeatures,
} from '../../../../src/domain/render/index.js';

const SERVER_RENDERED: RenderFeatures = { textLength: 4000, linkCount: 40, scriptCount: 3, frameworkMarkers: ['next', 'react'], emptyAppRoot: false, noscriptAsksForJavaScript: false };
const APP_SHELL: RenderFeatures = { textLength: 0, linkCount: 0, scriptCount: 2, frameworkMarkers: [], emptyAppRoot: true, noscriptAsksForJavaScript: false };
const THIN_WITH_MARKER: RenderFeatures = { textLength: 120, linkCount: 1, scriptCount: 2, frameworkMarkers: ['vue'], emptyAppRoot: false, noscriptAsksForJavaScript: false };
const STATIC: RenderFeatures = { textLength: 2000, linkCount: 12, scriptCount: 0, frameworkMarkers: [], emptyAppRoot: false, noscriptAsksForJavaScript: false };

function input(overrides: Partial<RenderDecisionInput>): RenderDecisionInput {
  return { mode: 'auto', rules: NO_RENDER_RULES, url: 'https://shop.example/products/1', features: SERVER_RENDERED, source: 'http', draw: 0.99, ...overrides };
}

describe('decideRender: the loop guard, modes and rules', () => {
  it('never sends a rendered DOM to render again, in any mode, allowlisted or not', () => {
    for (const mode of ['never', 'auto', 'always'] as const) {
      expect(decideRender(input({ mode, source: 'rendered', features: APP_SHELL, rules: { allow: ['shop.example'], deny: [] } }))).toEqual({ render: false, reason: 'already-rendered' });
    }
  });

  it('renders nothing in never, not even an allowlisted app shell', () => {
    expect(decideRender(input({ mode: 'never', features: APP_SHELL, rules: { allow: ['shop.example'], deny: [] } }))).toEqual({ render: false, reason: 'mode-never' });
  });

  it('renders every page in always, but not a denylisted one', () => {
    expect(decideRender(input({ mode: 'always', features: STATIC }))).toEqual({ render: true, reason: 'mode-always', sampleBothWays: false });
    expect(decideRender(input({ mode: 'always', rules: { allow: [], deny: ['https://shop.example/products/'] } }))).toEqual({ render: false, reason: 'denylisted' });
  });

  it('renders an allowlisted page in auto whatever its HTML says', () => {
    expect(decideRender(input({ features: STATIC, rules: { allow: ['shop.example'], deny: [] } }))).toEqual({ render: true, reason: 'allowlisted', sampleBothWays: false });
  });

  it('lets the most specific rule win: a deny prefix inside an allowed host, an allow prefix inside a denied one', () => {
    const rules = { allow: ['shop.example', 'https://shop.example/app/'], deny: ['https://shop.example/products/', 'other.example'] };
    expect(decideRender(input({ rules, features: STATIC })).reason).toBe('denylisted');
    expect(decideRender(input({ rules, features: STATIC, url: 'https://shop.example/about' })).reason).toBe('allowlisted');
    expect(decideRender(input({ rules, features: STATIC, url: 'https://shop.example/app/x' })).reason).toBe('allowlisted');
    expect(decideRender(input({ rules: { allow: ['https://other.example/app/'], deny: ['other.example'] }, features: STATIC, url: 'https://other.example/app/1' })).reason).toBe('allowlisted');
    expect(decideRender(input({ rules: { allow: ['shop.example'], deny: ['shop.example'] }, features: STATIC })).reason).toBe('denylisted');
  });
});

describe('decideRender in auto: the initial HTML', () => {
  it('does not render a server-rendered page with full text and links, framework markers or not', () => {
    expect(decideRender(input({ features: SERVER_RENDERED }))).toEqual({ render: false, reason: 'server-rendered' });
  });

  it('does not render a page without scripts, however thin', () => {
    expect(decideRender(input({ features: { ...APP_SHELL, scriptCount: 0 } }))).toEqual({ render: false, reason: 'no-scripts' });
  });

  it('renders on strong evidence: an empty application root, a <noscript> asking for JavaScript', () => {
    expect(decideRender(input({ features: APP_SHELL }))).toEqual({ render: true, reason: 'empty-app-root', sampleBothWays: false });
    const noscript = { ...SERVER_RENDERED, textLength: 900, noscriptAsksForJavaScript: true };
    expect(decideRender(input({ features: noscript }))).toEqual({ render: true, reason: 'noscript-asks-for-javascript', sampleBothWays: false });
  });

  it('renders on weak evidence: thin text and few links with scripts and a framework marker', () => {
    expect(decideRender(input({ features: THIN_WITH_MARKER })).reason).toBe('thin-page-with-framework');
    // Thin, few links, but no marker: only a bare page renders.
    expect(decideRender(input({ features: { ...THIN_WITH_MARKER, frameworkMarkers: [] } })).reason).toBe('server-rendered');
    expect(decideRender(input({ features: { ...THIN_WITH_MARKER, frameworkMarkers: [], textLength: 10, linkCount: 0 } })).reason).toBe('thin-page-with-scripts');
    // Enough links, or enough text: not thin.
    expect(decideRender(input({ features: { ...THIN_WITH_MARKER, linkCount: DEFAULT_RENDER_HEURISTICS.fewLinks } })).reason).toBe('server-rendered');
    expect(decideRender(input({ features: { ...THIN_WITH_MARKER, textLength: DEFAULT_RENDER_HEURISTICS.thinTextChars } })).reason).toBe('server-rendered');
  });

  it('samples weak-evidence pages without a verdict both ways, by the draw', () => {
    expect(decideRender(input({ features: THIN_WITH_MARKER, draw: 0 }))).toEqual({ render: true, reason: 'thin-page-with-framework', sampleBothWays: true });
    expect(decideRender(input({ features: THIN_WITH_MARKER, draw: DEFAULT_RENDER_HEURISTICS.sampleShare }))).toEqual({ render: true, reason: 'thin-page-with-framework', sampleBothWays: false });
  });
});

describe('decideRender in auto: the template verdict', () => {
  it('skips weak-evidence pages of a static template, except a recheck sample', () => {
    const verdict = { verdict: 'static' as const, needsRender: 0, staticSuffices: 3 };
    expect(decideRender(input({ features: THIN_WITH_MARKER, verdict }))).toEqual({ render: false, reason: 'template-static' });
    expect(decideRender(input({ features: THIN_WITH_MARKER, verdict, draw: 0 }))).toEqual({ render: true, reason: 'verdict-sample', sampleBothWays: true });
  });

  it('never lets a static verdict overrule strong evidence', () => {
    const verdict = { verdict: 'static' as const, needsRender: 0, staticSuffices: 3 };
    expect(decideRender(input({ features: APP_SHELL, verdict })).render).toBe(true);
  });

  it('renders pages of a template that needs rendering, though their HTML looks whole', () => {
    const verdict = { verdict: 'render' as const, needsRender: 3, staticSuffices: 0 };
    expect(decideRender(input({ features: SERVER_RENDERED, verdict }))).toEqual({ render: true, reason: 'template-needs-render', sampleBothWays: false });
    expect(decideRender(input({ features: THIN_WITH_MARKER, verdict, draw: 0 }))).toEqual({ render: true, reason: 'thin-page-with-framework', sampleBothWays: true });
  });

  it('treats a verdict still undecided as none', () => {
    expect(decideRender(input({ features: THIN_WITH_MARKER, verdict: { needsRender: 1, staticSuffices: 0 } })).reason).toBe('thin-page-with-framework');
  });

  it('refuses heuristics out of range', () => {
    expect(() => decideRender(input({}), { ...DEFAULT_RENDER_HEURISTICS, sampleShare: 2 })).toThrow(RenderInputError);
    expect(() => decideRender(input({}), { ...DEFAULT_RENDER_HEURISTICS, thinTextChars: -1 })).toThrow(/thinTextChars/);
  });
});
