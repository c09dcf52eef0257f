import { describe, expect, it } from 'vitest';
import { crawlOptions, crawlUsage } from '../../../src/cli/commands/crawl.js';
import { DEFAULT_CRAWL_CONFIG } from '../../../src/config/crawl-config.js';

/** Options that take no default: what to crawl, or which crawl to attach to. */
const WITHOUT_DEFAULT = new Set(['seeds-file', 'resume']);

/** `--help`'s option descriptions: each starts on a line that begins with `  --`. */
function descriptions(): string[] {
  const body = crawlUsage.slice(crawlUsage.indexOf('\n\n'));
  const blocks: string[] = [];
  for (const line of body.split('\n')) {
    if (/^ {2}--/.test(line)) blocks.push(line);
    else if (blocks.length > 0 && /^ {3,}\S/.test(line)) blocks[blocks.length - 1] += `\n${line}`;
  }
  return blocks;
}

describe('crawler crawl --help', () => {
  it('describes every option, and gives the default of each that has one', () => {
    const blocks = descriptions();
    for (const name of Object.keys(crawlOptions)) {
      const block = blocks.find((text) => new RegExp(`--${name}(?![a-z-])`).test(text));
      expect(block, `--${name} is described`).toBeDefined();
      if (!WITHOUT_DEFAULT.has(name)) expect(block, `--${name} shows its default`).toMatch(/default/);
    }
  });

  it('shows the limits that end a crawl first, with their values', () => {
    const limits = crawlUsage.slice(crawlUsage.indexOf('Limits'), crawlUsage.indexOf('--seeds-file F  '));
    expect(limits).toContain(`--max-pages N            URLs admitted for fetching at most: the page budget (default ${DEFAULT_CRAWL_CONFIG.maxPages})`);
    expect(limits).toContain('--max-discovered-urls N');
    expect(limits).toContain(`(default ${DEFAULT_CRAWL_CONFIG.maxDepth})`);
  });
});
