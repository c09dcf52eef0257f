import { afterAll, describe, expect, it } from 'vitest';
import { extractHtmlDocument } from '../../../src/parse/html-document.js';
import { HtmlParsePool, HtmlParsePoolError } from '../../../src/parse/html-parse-pool.js';
import { ParseBudgetError } from '../../../src/parse/parse-budget.js';
import { worstLoopLagMs } from '../../support/loop-lag.js';

const options = { productToken: 'durablecrawler' };

/** A flat page of `blocks` link blocks: 3 elements each, about 40 characters. */
function flatPage(blocks: number): string {
  return `<html><head><title>Flat</title></head><body>${'<div><a href="/x">y</a> text</div>'.repeat(blocks)}</body></html>`;
}

async function budgetErrorOf(work: Promise<unknown>): Promise<ParseBudgetError> {
  const error = await work.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (error instanceof ParseBudgetError) return error;
  throw new Error(`expected a ParseBudgetError, got ${String(error)}`);
}

describe('HtmlParsePool', () => {
  const pool = new HtmlParsePool({ parseThreads: 1, parseTimeoutMs: 1000, inThreadMaxChars: 1024 });
  afterAll(() => pool.close());

  it('parses a large page in a thread into the same document as in-thread', async () => {
    const html = flatPage(2000);
    expect(await pool.extract(html, 'https://example.com/', options)).toEqual(extractHtmlDocument(html, 'https://example.com/', options));
  });

  it('sends a page over the depth budget back as ParseBudgetError with its code', async () => {
    const error = await budgetErrorOf(pool.extract('<div>'.repeat(50_000), 'https://example.com/deep', options));
    expect(error.code).toBe('PARSE_BUDGET_DEPTH');
    expect(error.url).toBe('https://example.com/deep');
  });

  it('ends a parse past its time budget without pinning the event loop, then parses the next page on a fresh thread', async () => {
    // A budget of 100 ms against 900,000 elements (the element budget lifted): the one-pass parser
    // reads them in about a second on an idle machine, so a 1 s budget was sometimes enough.
    const strict = new HtmlParsePool({ parseThreads: 1, parseTimeoutMs: 100, inThreadMaxChars: 1024 });
    try {
      const slow = strict.extract(flatPage(300_000), 'https://example.com/slow', { ...options, budget: { maxElements: 1_000_000 } });
      const startedAtMs = performance.now();
      const lagMs = await worstLoopLagMs(() => slow);
      expect((await budgetErrorOf(slow)).code).toBe('PARSE_BUDGET_TIME');
      expect(performance.now() - startedAtMs).toBeLessThan(2500);
      expect(lagMs).toBeLessThan(200);
      const next = await strict.extract(flatPage(100), 'https://example.com/next', options);
      expect(next.title).toBe('Flat');
    } finally {
      await strict.close();
    }
  });

  it('parses small pages on the calling thread, and fails them the same way', async () => {
    const closed = new HtmlParsePool({ inThreadMaxChars: 1024 });
    await closed.close();
    expect((await closed.extract(flatPage(5), 'https://example.com/small', options)).title).toBe('Flat');
    await expect(closed.extract(flatPage(100), 'https://example.com/large', options)).rejects.toMatchObject({ code: 'PARSE_POOL_CLOSED' });
  });

  it('fails the waiting pages, and does not restart forever, when a thread cannot start', async () => {
    const broken = new HtmlParsePool({ inThreadMaxChars: 0, threadEntry: new URL('data:text/javascript,throw new Error("no parser here")') });
    try {
      const pages = [1, 2].map((n) => broken.extract(flatPage(10), `https://example.com/${n}`, options));
      for (const page of pages) await expect(page).rejects.toMatchObject({ code: 'PARSE_THREAD_FAILED', message: expect.stringContaining('no parser here') });
      await expect(broken.extract(flatPage(10), 'https://example.com/3', options)).rejects.toMatchObject({ code: 'PARSE_THREAD_FAILED' });
    } finally {
      await broken.close();
    }
  });

  it('refuses options that are not whole numbers in range, with a stable code', () => {
    expect(() => new HtmlParsePool({ parseThreads: 0 })).toThrow(HtmlParsePoolError);
    expect(() => new HtmlParsePool({ parseTimeoutMs: 1.5 })).toThrow(/PARSE_POOL_OPTION_INVALID: parseTimeoutMs/);
  });
});
