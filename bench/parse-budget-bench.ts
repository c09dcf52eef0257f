// Parse budget benchmark (issue 26): what the pre-scan, the tree build and the tree-depth walk cost
// on ordinary and hostile pages, and how long the event loop stays away while a heavy page is
// parsed on it or through the parse pool. Figures only, never asserted: `npm run bench:parse`.
import * as cheerio from 'cheerio';
import { extractHtmlDocument } from '../src/parse/html-document.js';
import { HtmlParsePool } from '../src/parse/html-parse-pool.js';
import { measureDocumentShape, treeDepthOf } from '../src/parse/parse-budget.js';
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

function refusedOrParsed(html: string): string {
  try {
    extractHtmlDocument(html, 'https://example.com/', OPTIONS);
    return 'parsed';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

console.log('page | KiB | depth | elements | pre-scan ms | cheerio.load ms | tree walk ms | extractHtmlDocument ms | outcome');
const pages: Array<[string, string, number, boolean]> = [
  ['wide 100 blocks', wide(100), 200, true],
  ['wide 2,500 blocks', wide(2500), 20, true],
  ['wide 80,000 blocks', wide(80_000), 3, true],
  ['nested 998', nested(998), 20, true],
  ['nested 50,000 (issue 26)', nested(50_000), 3, false],
  ['250 stacks of 995', deepStacks(250, 995), 1, false], // within budget, slow: the time budget's case
];
for (const [name, html, reps, loadAlone] of pages) {
  const shape = measureDocumentShape(html, { maxElementDepth: 1000, maxElements: 250_000 });
  const scanMs = meanMs(() => measureDocumentShape(html, { maxElementDepth: 1000, maxElements: 250_000 }), reps);
  let $ = cheerio.load('');
  // Not loaded alone: refused before the build, or minutes of it.
  const loadMs = loadAlone ? meanMs(() => ($ = cheerio.load(html)), reps).toFixed(1) : '-';
  const walkMs = loadAlone ? meanMs(() => treeDepthOf($.root()[0]!), reps).toFixed(2) : '-';
  const outcome = refusedOrParsed(html);
  const extractMs = meanMs(() => refusedOrParsed(html), reps);
  // The pre-scan stops at the first limit it passes.
  const depth = shape.maxElementDepth > 1000 ? '> 1000' : String(shape.maxElementDepth);
  const cells = [name, (html.length / 1024).toFixed(0), depth, shape.elements, scanMs.toFixed(2), loadMs, walkMs, extractMs.toFixed(1), outcome];
  console.log(cells.join(' | '));
}

const heavy = wide(80_000);
const pool = new HtmlParsePool({ parseThreads: 1 });
await pool.extract(wide(2000), 'https://example.com/', OPTIONS); // the thread started and warm
const inThreadLagMs = await worstLoopLagMs(async () => extractHtmlDocument(heavy, 'https://example.com/', OPTIONS));
const poolLagMs = await worstLoopLagMs(() => pool.extract(heavy, 'https://example.com/', OPTIONS));
await pool.close();
console.log(`\nworst event-loop lag while a ${(heavy.length / 1024).toFixed(0)} KiB page of 160,000 elements is parsed: ${inThreadLagMs.toFixed(0)} ms on the event loop, ${poolLagMs.toFixed(0)} ms through the parse pool`);
