/**
 * The verdict kept per host and path template: do this template's pages need a browser? It is
 * trained only by pages rendered both ways (the HTTP parse and the render of the same body,
 * compared by normalized link sets and text length), as Crawlee's adaptive crawler checks itself;
 * an error on either side is inconclusive and never trains it (a failed render is not evidence that
 * the page is static: crawlee-python #2096).
 */

export type RenderVerdictKind = 'render' | 'static';

/** Plain JSON, stored per (host, path template). */
export interface RenderVerdict {
  /** Undefined until enough samples agree. */
  verdict?: RenderVerdictKind;
  /** Samples that found the render adds what the HTTP page lacks. */
  needsRender: number;
  /** Samples that found the HTTP page whole. */
  staticSuffices: number;
}

export const EMPTY_VERDICT: Readonly<RenderVerdict> = Object.freeze({ needsRender: 0, staticSuffices: 0 });

/** One side of a comparison: the links (absolute, canonical URLs) and text length a page yielded. */
export interface PageYield {
  links: readonly string[];
  textLength: number;
}

/** The outcome of one page rendered both ways. */
export type SampleComparison = 'needs-render' | 'static-suffices' | 'inconclusive';

export interface SampleComparisonOptions {
  /** The render found at least this many links the HTTP page lacked... Default 2. */
  minNewLinks: number;
  /** ...or this share of the links it found were new, in [0, 1]. Default 0.2. */
  minNewLinkShare: number;
  /** Or the rendered text is at least this many times the HTTP text... Default 1.5. */
  minTextGrowth: number;
  /** ...and longer by at least this many characters. Default 200. */
  minTextGainChars: number;
}

export const DEFAULT_SAMPLE_COMPARISON: Readonly<SampleComparisonOptions> = Object.freeze({ minNewLinks: 2, minNewLinkShare: 0.2, minTextGrowth: 1.5, minTextGainChars: 200 });

/**
 * Whether the render added what matters: links the HTTP page lacked (compared as sets) or much
 * more text. `undefined` on either side (that side failed) is inconclusive.
 */
export function compareRenderSample(http: PageYield | undefined, rendered: PageYield | undefined, options: SampleComparisonOptions = DEFAULT_SAMPLE_COMPARISON): SampleComparison {
  if (http === undefined || rendered === undefined) return 'inconclusive';
  const httpLinks = new Set(http.links);
  const renderedLinks = new Set(rendered.links);
  let newLinks = 0;
  for (const link of renderedLinks) if (!httpLinks.has(link)) newLinks += 1;
  const linkGain = newLinks >= options.minNewLinks && (renderedLinks.size === 0 ? 0 : newLinks / renderedLinks.size) >= options.minNewLinkShare;
  const textGain = rendered.textLength - http.textLength >= options.minTextGainChars && rendered.textLength >= http.textLength * options.minTextGrowth;
  return linkGain || textGain ? 'needs-render' : 'static-suffices';
}

export interface VerdictOptions {
  /** Agreeing samples that set a verdict, and the lead one side needs over the other. Default 2. */
  samplesToDecide: number;
}

export const DEFAULT_VERDICT_OPTIONS: Readonly<VerdictOptions> = Object.freeze({ samplesToDecide: 2 });

/**
 * The verdict after one more sample. Inconclusive samples change nothing. A side decides once it
 * has `samplesToDecide` samples and leads the other by as many; a verdict contradicted until the
 * other side leads is dropped, then replaced.
 */
export function nextRenderVerdict(current: RenderVerdict | undefined, sample: SampleComparison, options: VerdictOptions = DEFAULT_VERDICT_OPTIONS): RenderVerdict {
  const base = current ?? EMPTY_VERDICT;
  if (sample === 'inconclusive') return { ...base };
  const needsRender = base.needsRender + (sample === 'needs-render' ? 1 : 0);
  const staticSuffices = base.staticSuffices + (sample === 'static-suffices' ? 1 : 0);
  const lead = needsRender - staticSuffices;
  const verdict: RenderVerdictKind | undefined =
    needsRender >= options.samplesToDecide && lead >= options.samplesToDecide
      ? 'render'
      : staticSuffices >= options.samplesToDecide && -lead >= options.samplesToDecide
        ? 'static'
        : lead === 0
          ? undefined
          : base.verdict === 'render' && lead > 0
            ? 'render'
            : base.verdict === 'static' && lead < 0
              ? 'static'
              : undefined;
  return verdict === undefined ? { needsRender, staticSuffices } : { verdict, needsRender, staticSuffices };
}
