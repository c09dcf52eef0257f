// Parse budget benchmark (issue 26): what the one budgeted parse costs on ordinary and hostile pages,
// alone and with a DOM tree for a change field, beside a bare count of the markup, and how long the
// event loop stays away while a heavy page is parsed on it or through the parse pool. Figures only,
// never asserted: `npm run bench:parse`.
import { extractHtmlDocument, type ExtractOptions } from '../src/parse/html-document.js';
import { HtmlParsePool } from '../src/parse/html-parse-pool.js';
import { measureDocumentShape } from '../src/parse/parse-budget.js';
import { worstLoopLagMs } from '../test/support/loop-lag.js';

const OPTIONS = { productToken: 'durablecrawler' };
const wide = (blocks: number): string => `<html><head><title>W</title></head><body>${'<div><a href="/ok.html">ok</a> text</div>'.repeat(blocks)}</body></html>`;
const nested = (levels: number): string => `<html><body>${'<div>'.repeat(levels)}x${'</div>'.repeat(levels)}</body></html>`;
const deepStacks = (stacks: number, levels: number): string => `<html><body>${`${'<div>'.repeat(levels)}x${'</div>'.repeat(levels)}`.repeat(stacks)}</body></html>`;

/** Mean ms of `run` over `reps` runs after one warm-up. */
function meanMs(run: () => unknown, reps: number): number {
  run();
  const startedAtMs = performance.now();
  for (let i = 0; i < reps; i += 1) run();
  return (performance.now() - startedAtMs) / reps;
}

const WITH_FIELD: ExtractOptions = { ...OPTIONS, changeFields: { link: 'div > a' } };

function refusedOrParsed(html: string, options: ExtractOptions = OPTIONS): string {
  try {
    extractHtmlDocument(html, 'https://example.com/', options);
    return 'parsed';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

console.log('page | KiB | depth | elements | count only ms | extractHtmlDocument ms | with a change field ms | outcome');
const pages: Array<[string, string, number]> = [
  ['wide 100 blocks', wide(100), 200],
  ['wide 2,500 blocks', wide(2500), 20],
  ['wide 80,000 blocks', wide(80_000), 3],
  ['nested 998', nested(998), 20],
  ['nested 50,000 (issue 26)', nested(50_000), 3],
  ['250 stacks of 995', deepStacks(250, 995), 1], // within budget, the slowest shape it lets through
];
for (const [name, html, reps] of pages) {
  const shape = measureDocumentShape(html, { maxElementDepth: 1000, maxElements: 250_000 });
  const countMs = meanMs(() => measureDocumentShape(html, { maxElementDepth: 1000, maxElements: 250_000 }), reps);
  const outcome = refusedOrParsed(html);
  const extractMs = meanMs(() => refusedOrParsed(html), reps);
  const withFieldMs = meanMs(() => refusedOrParsed(html, WITH_FIELD), reps);
  // The count stops at the first limit it passes, as the parse does.
  const depth = shape.maxElementDepth > 1000 ? '> 1000' : String(shape.maxElementDepth);
  const cells = [name, (html.length / 1024).toFixed(0), depth, shape.elements, countMs.toFixed(2), extractMs.toFixed(1), withFieldMs.toFixed(1), outcome];
  console.log(cells.join(' | '));
}

const heavy = wide(80_000);
const pool = new HtmlParsePool({ parseThreads: 1 });
await pool.extract(wide(2000), 'https://example.com/', OPTIONS); // the thread started and warm
const inThreadLagMs = await worstLoopLagMs(async () => extractHtmlDocument(heavy, 'https://example.com/', OPTIONS));
const poolLagMs = await worstLoopLagMs(() => pool.extract(heavy, 'https://example.com/', OPTIONS));
await pool.close();
console.log(`\nworst event-loop lag while a ${(heavy.length / 1024).toFixed(0)} KiB page of 160,000 elements is parsed: ${inThreadLagMs.toFixed(0)} ms on the event loop, ${poolLagMs.toFixed(0)} ms through the parse pool`);
