/**
 * A seeds file, read as a stream: one URL per line, `#` comments and blank lines ignored. It is
 * read twice for a large file, never held whole: once to check every seed before anything starts,
 * once to register them in batches (the workflow's input holds small seed lists only). It must be
 * a regular file within MAX_SEEDS_FILE_BYTES, and a line within MAX_SEED_LINE_CHARS.
 */
import { redactUserinfo, tryCanonicalizeUrl } from '../domain/url/index.js';
import { neutralizeText } from '../domain/text/index.js';
import { CliError } from './cli-error.js';
import { openInputFile } from './input-file.js';

/** Most seeds one file may hold; more: split it, or add the rest to the running crawl. */
export const MAX_SEEDS = 1_000_000;
/** Up to this many seeds go in the crawl workflow's input; more are registered by the CLI first (Temporal's payload limit). */
export const SEEDS_IN_WORKFLOW_INPUT = 10_000;
/** Seeds registered per transaction. */
export const SEED_BATCH = 10_000;
/** Largest seeds file read: MAX_SEEDS lines of a kilobyte each. */
export const MAX_SEEDS_FILE_BYTES = 1024 * 1024 * 1024;
/** Longest line read, comment included; a seed URL is at most 2,048 characters (DEFAULT_MAX_URL_LENGTH). */
export const MAX_SEED_LINE_CHARS = 64 * 1024;

const notStarted = 'give a file of seed URLs, one a line; nothing was started.';

interface BoundedLine {
  text: string;
  /** Characters of the line past `text`, not kept: it was longer than the limit. */
  droppedChars: number;
}

/**
 * The lines of a text stream, a chunk's worth at a time, split at LF, CRLF or a lone CR (as
 * readline splits them). A line over maxLineChars is read to its end without being held: its
 * first maxLineChars characters come with the count of the rest.
 */
async function* boundedLines(chunks: AsyncIterable<string>, maxLineChars: number): AsyncGenerator<BoundedLine[]> {
  let text = '';
  let droppedChars = 0;
  const take = (piece: string): void => {
    const room = Math.max(0, maxLineChars - text.length);
    text += piece.length <= room ? piece : piece.slice(0, room);
    droppedChars += Math.max(0, piece.length - room);
  };
  // The previous chunk ended in CR: a LF opening this one belongs to it.
  let skipLf = false;
  for await (const chunk of chunks) {
    const lines: BoundedLine[] = [];
    let index = skipLf && chunk.startsWith('\n') ? 1 : 0;
    skipLf = chunk.endsWith('\r');
    const breaks = /\r\n|\n|\r/g;
    breaks.lastIndex = index;
    for (let match = breaks.exec(chunk); match !== null; match = breaks.exec(chunk)) {
      take(chunk.slice(index, match.index));
      lines.push({ text, droppedChars });
      text = '';
      droppedChars = 0;
      index = match.index + match[0].length;
    }
    take(chunk.slice(index));
    if (lines.length > 0) yield lines;
  }
  if (text !== '' || droppedChars > 0) yield [{ text, droppedChars }];
}

/** Each seed of the file, with its line number. */
async function* seedLines(file: string): AsyncGenerator<{ seed: string; line: number }> {
  const { handle } = await openInputFile(file, { what: 'seeds file', maxBytes: MAX_SEEDS_FILE_BYTES, hint: notStarted });
  const stream = handle.createReadStream({ encoding: 'utf8' });
  let line = 0;
  try {
    for await (const lines of boundedLines(stream, MAX_SEED_LINE_CHARS)) {
      for (const read of lines) {
        line += 1;
        if (read.droppedChars > 0) {
          throw new CliError(
            `line ${line} of seeds file '${file}' is longer than a seed can be (${MAX_SEED_LINE_CHARS} characters): '${neutralizeText(read.text, { droppedChars: read.droppedChars })}'. Fix or remove it; nothing was started.`,
            2,
          );
        }
        const seed = read.text.replace(/#.*$/, '').trim();
        if (seed !== '') yield { seed, line };
      }
    }
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`cannot read seeds file '${file}': ${(error as Error).message}`, 2);
  } finally {
    stream.destroy();
    await handle.close().catch(() => undefined);
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
    if (!result.ok) throw new CliError(`invalid seed URL '${neutralizeText(redactUserinfo(seed))}' on line ${line} of ${file}: ${result.error.message}. Fix or remove it; nothing was started.`, 2);
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
