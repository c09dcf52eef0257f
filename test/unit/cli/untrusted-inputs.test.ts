// Seeds files and replay histories are files someone else may have written: each must be a regular
// file within a size cap (no device, FIFO or symbolic link out of the named folder), refused with
// an error naming it and what to do, exit 2 and nothing started; what the error quotes of it is
// neutralised and short.
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError } from '../../../src/cli/cli-error.js';
import { historiesFromFiles, MAX_HISTORY_FILE_BYTES } from '../../../src/cli/commands/replay.js';
import { checkSeedsFile, MAX_SEEDS_FILE_BYTES } from '../../../src/cli/seeds-file.js';

const root = path.resolve(import.meta.dirname, '../../..');
const dir = mkdtempSync(path.join(tmpdir(), 'untrusted-inputs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fifo = (name: string): string => {
  const file = path.join(dir, name);
  execFileSync('mkfifo', [file]);
  return file;
};

interface Run {
  code: number | null;
  stderr: string;
  stdout: string;
  killed: boolean;
}

/** `crawler ...args` in a child process with no services configured, killed after 20 s (the old code hangs on a FIFO). */
function crawler(args: string[]): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '--max-old-space-size=256' };
  for (const name of ['TEMPORAL_ADDRESS', 'DATABASE_URL', 'S3_ENDPOINT', 'S3_ACCESS_KEY', 'S3_SECRET_KEY']) delete env[name];
  return new Promise((resolve) => {
    const child = execFile('node', ['bin/crawler.js', ...args, '--data-dir', path.join(dir, 'data')], { cwd: root, env, timeout: 20_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: child.exitCode, stdout, stderr, killed: error?.killed === true || child.signalCode !== null });
    });
  });
}

async function rejection(promise: Promise<unknown>): Promise<CliError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    return error as CliError;
  }
  throw new Error('expected a rejection');
}

describe('crawler crawl --seeds-file: a regular file only', () => {
  // The child processes run side by side: each spends its seconds starting Node and tsx.
  it.concurrent('refuses /dev/zero at once: exit 2, naming the file, nothing started', async () => {
    const run = await crawler(['crawl', '--seeds-file', '/dev/zero']);
    expect(run.killed).toBe(false);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("seeds file '/dev/zero' is not a regular file (a character device)");
    expect(run.stderr).toContain('nothing was started');
    expect(run.stdout).toBe('');
  }, 40_000);

  it.concurrent('refuses a FIFO instead of waiting for a writer', async () => {
    const file = fifo('seeds.fifo');
    const run = await crawler(['crawl', '--seeds-file', file]);
    expect(run.killed).toBe(false);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`seeds file '${file}' is not a regular file (a FIFO)`);
  }, 40_000);

  it('refuses a file over the size cap before reading it', async () => {
    const file = path.join(dir, 'huge-seeds.txt');
    writeFileSync(file, '');
    truncateSync(file, MAX_SEEDS_FILE_BYTES + 1);
    const error = await rejection(checkSeedsFile(file));
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(`seeds file '${file}' is ${MAX_SEEDS_FILE_BYTES + 1} bytes, over the cap of ${MAX_SEEDS_FILE_BYTES}`);
  });

  it('follows a symbolic link the operator named to a regular file', async () => {
    const target = path.join(dir, 'real-seeds.txt');
    writeFileSync(target, 'http://127.0.0.1/a\n# comment\n\nhttp://127.0.0.1/b\r\nhttp://127.0.0.1/c');
    const link = path.join(dir, 'linked-seeds.txt');
    symlinkSync(target, link);
    expect(await checkSeedsFile(link)).toBe(3);
  });

  it('quotes a 20 MB line in a few hundred characters, controls escaped, saying how much it cut', async () => {
    const file = path.join(dir, 'long-line.txt');
    const line = `http://127.0.0.1/\u001b[2J\u0085${'x'.repeat(20 * 1024 * 1024)}`;
    writeFileSync(file, `http://127.0.0.1/ok\n${line}\n`);
    const error = await rejection(checkSeedsFile(file));
    expect(error.exitCode).toBe(2);
    expect(error.message.length).toBeLessThan(1_000);
    expect(error.message).toContain('line 2');
    expect(error.message).toContain('http://127.0.0.1/\\x1b[2J\\x85xxx');
    expect(error.message).toContain(`(${[...line].length - 200} more characters)`);
    // eslint-disable-next-line no-control-regex
    expect(error.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });

  it('counts a CRLF split between two reads as one line end', async () => {
    const file = path.join(dir, 'crlf-at-chunk-edge.txt');
    // The stream reads 64 KiB at a time: the CR is the first read's last byte, the LF the next one's first.
    writeFileSync(file, `#${'x'.repeat(64 * 1024 - 2)}\r\nftp://127.0.0.1/\n`);
    const error = await rejection(checkSeedsFile(file));
    expect(error.message).toContain("invalid seed URL 'ftp://127.0.0.1/' on line 2");
  });

  it('escapes the controls of a short bad seed', async () => {
    const file = path.join(dir, 'control-seed.txt');
    writeFileSync(file, 'ftp://127.0.0.1/\u009b31mred\n');
    const error = await rejection(checkSeedsFile(file));
    expect(error.message).toContain("invalid seed URL 'ftp://127.0.0.1/\\x9b31mred' on line 1");
  });
});

describe('crawler replay --file: regular files within the named folder only', () => {
  it.concurrent('refuses /dev/zero at once: exit 2, naming it', async () => {
    const run = await crawler(['replay', '--file', '/dev/zero']);
    expect(run.killed).toBe(false);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("history file '/dev/zero' is not a regular file (a character device)");
    expect(run.stdout).toBe('');
  }, 40_000);

  it.concurrent('refuses a FIFO instead of waiting for a writer', async () => {
    const file = fifo('history.fifo');
    const run = await crawler(['replay', '--file', file]);
    expect(run.killed).toBe(false);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`history file '${file}' is not a regular file (a FIFO)`);
  }, 40_000);

  it('refuses a FIFO or a device in a folder of histories', async () => {
    const folder = path.join(dir, 'histories-with-fifo');
    mkdirSync(folder);
    execFileSync('mkfifo', [path.join(folder, 'a.json')]);
    const error = await rejection(historiesFromFiles(folder));
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(`history file '${path.join(folder, 'a.json')}' is not a regular file (a FIFO)`);
  });

  it('refuses a symbolic link out of the folder, quoting nothing of its target', async () => {
    const folder = path.join(dir, 'histories-with-link');
    mkdirSync(folder);
    const secret = path.join(dir, 'secret.txt');
    writeFileSync(secret, 'root:hunter2\n');
    symlinkSync(secret, path.join(folder, 'a.json'));
    const error = await rejection(historiesFromFiles(folder));
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(`history file '${path.join(folder, 'a.json')}' is a symbolic link out of ${folder}`);
    expect(error.message).not.toContain('hunter2');
    expect(error.message).not.toContain('root:');
  });

  it('follows a symbolic link that stays in the folder', async () => {
    const folder = path.join(dir, 'histories-linked-inside');
    mkdirSync(folder);
    const history = path.join(root, 'test/integration/workflows/replay/histories/crawl-workflow.json');
    writeFileSync(path.join(folder, 'a.json'), await (await import('node:fs/promises')).readFile(history, 'utf8'));
    symlinkSync('a.json', path.join(folder, 'b.json'));
    expect((await historiesFromFiles(folder)).length).toBe(2);
  });

  it('refuses a history over the size cap before reading it', async () => {
    const file = path.join(dir, 'huge-history.json');
    writeFileSync(file, '');
    truncateSync(file, MAX_HISTORY_FILE_BYTES + 1);
    const error = await rejection(historiesFromFiles(file));
    expect(error.message).toContain(`history file '${file}' is ${MAX_HISTORY_FILE_BYTES + 1} bytes, over the cap of ${MAX_HISTORY_FILE_BYTES}`);
  });

  it('quotes what is not JSON neutralised and short', async () => {
    const file = path.join(dir, 'not-json.json');
    writeFileSync(file, `\u001b]0;owned\u0007${'y'.repeat(10_000)}`);
    const error = await rejection(historiesFromFiles(file));
    expect(error.message).toContain('is not a JSON workflow history');
    expect(error.message.length).toBeLessThan(1_000);
    // eslint-disable-next-line no-control-regex
    expect(error.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });
});
