/**
 * A seeds file, read as a stream: one URL per line, `#` comments and blank lines ignored. It is
 * read twice for a large file, never held whole: once to check every seed before anything starts,
 * once to register them in batches (the workflow's input holds small seed lists only).
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { redactUserinfo, tryCanonicalizeUrl } from '../domain/url/index.js';
import { CliError } from './cli-error.js';

/** Most seeds one file may hold; more: split it, or add the rest to the running crawl. */
export const MAX_SEEDS = 1_000_000;
/** Up to this many seeds go in the crawl workflow's input; more are registered by the CLI first (Temporal's payload limit). */
export const SEEDS_IN_WORKFLOW_INPUT = 10_000;
/** Seeds registered per transaction. */
export const SEED_BATCH = 10_000;

/** Each seed of the file, with its line number. */
async function* seedLines(file: string): AsyncGenerator<{ seed: string; line: number }> {
  const stream = createReadStream(file, { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const text of lines) {
      line += 1;
      const seed = text.replace(/#.*$/, '').trim();
      if (seed !== '') yield { seed, line };
    }
  } catch (error) {
    throw new CliError(`cannot read seeds file '${file}': ${(error as Error).message}`, 2);
  } finally {
    lines.close();
    stream.destroy();
  }
}

/** Checks every seed of the file and counts them; the first bad one, or one too many, stops it with an error naming the line. */
export async function checkSeedsFile(file: string, alreadyGiven = 0): Promise<number> {
  let count = 0;
  for await (const { seed, line } of seedLines(file)) {
    count += 1;
    if (alreadyGiven + count > MAX_SEEDS) {
      throw new CliError(`seeds file '${file}' has more than ${MAX_SEEDS.toLocaleString('en')} seeds (line ${line}): split it, or add the rest to the running crawl with \`crawler add-seeds --crawl ID\`; nothing was started.`, 2);
    }
    const result = tryCanonicalizeUrl(seed);
    if (!result.ok) throw new CliError(`invalid seed URL '${redactUserinfo(seed)}' on line ${line} of ${file}: ${result.error.message}. Fix or remove it; nothing was started.`, 2);
  }
  return count;
}

/** The file's seeds, SEED_BATCH at a time. */
export async function* seedBatches(file: string, size = SEED_BATCH): AsyncGenerator<string[]> {
  let batch: string[] = [];
  for await (const { seed } of seedLines(file)) {
    batch.push(seed);
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
