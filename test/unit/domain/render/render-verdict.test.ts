import { describe, expect, it } from 'vitest';
import { compareRenderSample, nextRenderVerdict, pathTemplateOf, type RenderVerdict } from '../../../../src/domain/render/index.js';

const links = (n: number, prefix = 'https://a.example/p/'): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('compareRenderSample', () => {
  it('is inconclusive when either side failed', () => {
    expect(compareRenderSample(undefined, { links: links(9), textLength: 900 })).toBe('inconclusive');
    expect(compareRenderSample({ links: [], textLength: 0 }, undefined)).toBe('inconclusive');
  });

  it('needs a render when it found links the HTTP page lacked', () => {
    expect(compareRenderSample({ links: [], textLength: 0 }, { links: links(3), textLength: 0 })).toBe('needs-render');
    // Set comparison: the same links in another order add nothing.
    expect(compareRenderSample({ links: links(5).reverse(), textLength: 500 }, { links: links(5), textLength: 500 })).toBe('static-suffices');
    // One new link is not enough; two of many (under the share) are not either.
    expect(compareRenderSample({ links: links(5), textLength: 500 }, { links: links(6), textLength: 500 })).toBe('static-suffices');
    expect(compareRenderSample({ links: links(40), textLength: 500 }, { links: links(42), textLength: 500 })).toBe('static-suffices');
  });

  it('needs a render when its text grew by half and 200 characters', () => {
    expect(compareRenderSample({ links: [], textLength: 100 }, { links: [], textLength: 400 })).toBe('needs-render');
    expect(compareRenderSample({ links: [], textLength: 1000 }, { links: [], textLength: 1250 })).toBe('static-suffices');
    expect(compareRenderSample({ links: [], textLength: 10 }, { links: [], textLength: 150 })).toBe('static-suffices');
  });
});

describe('nextRenderVerdict', () => {
  const run = (samples: Parameters<typeof nextRenderVerdict>[1][]): RenderVerdict => samples.reduce<RenderVerdict | undefined>((verdict, sample) => nextRenderVerdict(verdict, sample), undefined)!;

  it('decides after two agreeing samples', () => {
    expect(run(['needs-render']).verdict).toBeUndefined();
    expect(run(['needs-render', 'needs-render'])).toEqual({ verdict: 'render', needsRender: 2, staticSuffices: 0 });
    expect(run(['static-suffices', 'static-suffices'])).toEqual({ verdict: 'static', needsRender: 0, staticSuffices: 2 });
  });

  it('never trains on an inconclusive sample (a failed render is not evidence the page is static)', () => {
    expect(run(['inconclusive', 'inconclusive', 'inconclusive'])).toEqual({ needsRender: 0, staticSuffices: 0 });
    expect(run(['static-suffices', 'inconclusive', 'inconclusive']).verdict).toBeUndefined();
  });

  it('drops a contradicted verdict and replaces it once the other side leads', () => {
    const rendered = run(['needs-render', 'needs-render']);
    expect(nextRenderVerdict(rendered, 'static-suffices').verdict).toBe('render');
    const even = run(['needs-render', 'needs-render', 'static-suffices', 'static-suffices']);
    expect(even.verdict).toBeUndefined();
    expect(run(['needs-render', 'needs-render', 'static-suffices', 'static-suffices', 'static-suffices', 'static-suffices']).verdict).toBe('static');
  });
});

describe('pathTemplateOf', () => {
  it.each([
    ['https://a.example/products/42?page=2', '/products/*'],
    ['https://a.example/products/7', '/products/*'],
    ['https://a.example/', '/'],
    ['https://a.example/about', '/about'],
    ['https://a.example/blog/2024-05-01/hello', '/blog/*/hello'],
    ['https://a.example/item/blue-shirt-1234', '/item/*'],
    ['https://a.example/u/3f2a9c1e-1b2c-4d5e-8f90-1234567890ab', '/u/*'],
    ['https://a.example/c/0123456789abcdef', '/c/*'],
    ['https://a.example/docs/v2/api', '/docs/v2/api'],
    ['https://a.example/a/b/c/d/e/f', '/a/b/c/d/**'],
    ['not a url', '/'],
  ])('%s → %s', (url, template) => {
    expect(pathTemplateOf(url)).toBe(template);
  });
});
