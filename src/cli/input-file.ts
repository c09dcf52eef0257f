/**
 * Files the CLI reads that someone else may have written (a seeds file, exported workflow
 * histories): a regular file within a size cap, or an error that names it and says what to give
 * instead. A device never ends (/dev/zero), a FIFO blocks until a writer comes, and a symbolic
 * link in a folder of inputs may lead anywhere the operator can read.
 */
import { constants, type Stats } from 'node:fs';
import { lstat, open, realpath, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { CliError } from './cli-error.js';

export interface InputFileOptions {
  /** What the file is, for the error: 'seeds file', 'history file'. */
  what: string;
  /** Largest size accepted, in bytes. */
  maxBytes: number;
  /** What to do instead, appended to every error: "give a file of seed URLs, one a line; nothing was started." */
  hint: string;
  /**
   * The folder the file was found in: a symbolic link must resolve inside it. Default none (a path
   * the operator named is followed wherever it leads).
   */
  withinFolder?: string;
}

/** What kind of file a stat describes, for an error message. */
export function fileKind(stats: Stats): string {
  if (stats.isFile()) return 'a regular file';
  if (stats.isDirectory()) return 'a folder';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  return 'not a file';
}

function refused(file: string, options: InputFileOptions, why: string): CliError {
  return new CliError(`${options.what} '${file}' ${why}: ${options.hint}`, 2);
}

async function statOrRefuse(read: () => Promise<Stats>, file: string, options: InputFileOptions): Promise<Stats> {
  try {
    return await read();
  } catch (error) {
    throw refused(file, options, `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

/**
 * Opens `file` for reading once it is known to be a regular file of at most `maxBytes`, checked
 * before it is opened (a device or FIFO is never opened) and again on the open descriptor (the
 * same file, not one swapped in meanwhile). The caller closes the handle.
 */
export async function openInputFile(file: string, options: InputFileOptions): Promise<{ handle: FileHandle; bytes: number }> {
  if (options.withinFolder !== undefined && (await statOrRefuse(() => lstat(file), file, options)).isSymbolicLink()) {
    const [target, folder] = await Promise.all([realpath(file).catch(() => undefined), realpath(options.withinFolder)]);
    if (target === undefined || !target.startsWith(`${folder}${path.sep}`)) throw refused(file, options, `is a symbolic link out of ${options.withinFolder}`);
  }
  const named = await statOrRefuse(() => stat(file), file, options);
  if (!named.isFile()) throw refused(file, options, `is not a regular file (${fileKind(named)})`);
  if (named.size > options.maxBytes) throw refused(file, options, `is ${named.size} bytes, over the cap of ${options.maxBytes}`);
  // Non-blocking: should a FIFO have taken the file's place since, opening it does not wait for a writer.
  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw refused(file, options, `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const opened = await handle.stat();
  if (!opened.isFile() || opened.ino !== named.ino || opened.dev !== named.dev || opened.size > options.maxBytes) {
    await handle.close();
    throw refused(file, options, 'changed while it was opened');
  }
  return { handle, bytes: opened.size };
}
