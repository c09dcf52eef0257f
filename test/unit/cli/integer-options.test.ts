import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { integerOption } from '../../../src/cli/args.js';
import { CliError } from '../../../src/cli/cli-error.js';
import { bodiesCommand } from '../../../src/cli/commands/bodies.js';
import { crawlCommand } from '../../../src/cli/commands/crawl.js';
import { buildConfig } from '../../../src/cli/crawl/crawl-flags.js';
import { controlCommand } from '../../../src/cli/commands/control.js';
import { deadLettersCommand } from '../../../src/cli/commands/dead-letters.js';
import { buildCreateInput } from '../../../src/cli/commands/schedule.js';
import { workerCommand } from '../../../src/cli/commands/worker.js';

/** The CliError `run` throws (or rejects with). */
async function cliErrorOf(run: () => unknown): Promise<CliError> {
  let caught: unknown;
  try {
    await run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(CliError);
  return caught as CliError;
}

const root = mkdtempSync(join(tmpdir(), 'crawler-integer-options-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('integerOption', () => {
  it.each([
    ['0', 0, 0],
    ['5', 1, 5],
    ['1000', 0, 1000],
    ['9007199254740991', 1, Number.MAX_SAFE_INTEGER],
  ])('reads %s', (text, min, expected) => {
    expect(integerOption('max-pages', text, min)).toBe(expected);
  });

  it('is undefined when the flag is absent', () => {
    expect(integerOption('max-pages', undefined, 1)).toBeUndefined();
  });

  it.each(['', ' ', '0x10', '1e3', '0b11', '0o7', '-0', '+5', ' 5', '5 ', '5\n', '1.0', '1.5', '1_000', 'Infinity', 'NaN', '-1', '9007199254740993', '５'])(
    'refuses %j, naming the flag and the range, exit 2',
    async (text) => {
      const error = await cliErrorOf(() => integerOption('min-host-delay-ms', text, 0, 86_400_000));
      expect(error.exitCode).toBe(2);
      expect(error.message).toBe(`--min-host-delay-ms expects a decimal integer from 0 to 86400000, got '${text}'`);
    },
  );

  it('checks both ends of the range', async () => {
    expect(integerOption('max-depth', '1000', 0, 1000)).toBe(1000);
    expect((await cliErrorOf(() => integerOption('max-depth', '1001', 0, 1000))).message).toContain('from 0 to 1000');
    expect((await cliErrorOf(() => integerOption('max-pages', '0', 1))).message).toContain('--max-pages expects a decimal integer from 1 to');
  });
});

describe('crawl options', () => {
  it.each([
    ['min-host-delay-ms', '', 'from 0 to 86400000'],
    ['max-pages', '1e3', 'from 1 to 9007199254740991'],
    ['max-depth', '1001', 'from 0 to 1000'],
    ['max-in-flight', '0x10', 'from 1 to 100000'],
    ['connect-timeout-ms', '50', 'from 100 to 120000'],
    ['first-byte-timeout-ms', '-0', 'from 100 to 120000'],
    ['body-timeout-ms', '+500', 'from 100 to 120000'],
    ['max-concurrent-per-host', '65', 'from 1 to 64'],
    ['max-body-bytes', '0b11', 'from 1024 to 9007199254740991'],
    ['seen-filter-capacity', ' 5', 'from 0 to 100000000'],
  ])('--%s %j is refused at the flag, with its range', async (flag, text, range) => {
    const error = await cliErrorOf(() => buildConfig({ [flag]: text }));
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe(`--${flag} expects a decimal integer ${range}, got '${text}'`);
  });

  it('takes plain decimal values', async () => {
    const config = await buildConfig({ 'min-host-delay-ms': '0', 'max-pages': '25', 'connect-timeout-ms': '100' });
    expect(config).toMatchObject({ minHostDelayMs: 0, maxPages: 25, connectTimeoutMs: 100 });
  });

  it('starts nothing for a bad number: no data folder, no stack', async () => {
    // Should the check ever let the value through, the crawl must not start a real stack here:
    // every service is external, on a port nothing listens on.
    vi.stubEnv('TEMPORAL_ADDRESS', '127.0.0.1:1');
    vi.stubEnv('DATABASE_URL', 'postgres://nobody@127.0.0.1:1/none');
    vi.stubEnv('S3_ENDPOINT', '127.0.0.1:1');
    vi.stubEnv('S3_ACCESS_KEY', 'nobody');
    vi.stubEnv('S3_SECRET_KEY', 'nothing');
    const dataDir = join(root, 'crawl');
    const error = await cliErrorOf(() => crawlCommand(['https://example.com/', '--min-host-delay-ms', '', '--data-dir', dataDir, '--no-worker']));
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain('--min-host-delay-ms');
    expect(existsSync(dataDir)).toBe(false);
    vi.unstubAllEnvs();
  });
});

describe('other commands refuse a bad number before reaching any service', () => {
  it.each([
    ['worker --max-cached-workflows', () => workerCommand(['--max-cached-workflows=-0', '--data-dir', join(root, 'worker')]), '--max-cached-workflows expects a decimal integer from 0 to'],
    ['worker --max-database-connections', () => workerCommand(['--max-database-connections', '', '--data-dir', join(root, 'worker')]), '--max-database-connections expects a decimal integer from 1 to'],
    ['worker --parse-threads', () => workerCommand(['--parse-threads', '0', '--data-dir', join(root, 'worker')]), '--parse-threads expects a decimal integer from 1 to'],
    ['worker --parse-timeout-ms', () => workerCommand(['--parse-timeout-ms', '15s', '--data-dir', join(root, 'worker')]), '--parse-timeout-ms expects a decimal integer from 1 to'],
    ['dead-letters --limit', () => deadLettersCommand(['list', '--limit', '1e3', '--data-dir', join(root, 'dead')]), '--limit expects a decimal integer from 1 to'],
    ['host-delay --ms', () => controlCommand('host-delay', ['--host', 'example.com', '--ms', '0x10', '--data-dir', join(root, 'control')]), '--ms expects a decimal integer from 0 to 86400000'],
    ['bodies prune --older-than', () => bodiesCommand(['prune', '--older-than', '0x10', '--data-dir', join(root, 'bodies')]), '--older-than expects a decimal number >= 0'],
    ['bodies prune --grace-minutes', () => bodiesCommand(['prune', '--grace-minutes', '1e3', '--data-dir', join(root, 'bodies')]), '--grace-minutes expects a decimal number >= 0'],
  ])('%s', async (_name, run, named) => {
    const error = await cliErrorOf(run);
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(named);
  });

  it('schedule create --budget, --tick-interval-ms', async () => {
    expect((await cliErrorOf(() => buildCreateInput({ every: '1h', budget: '' }))).message).toBe("--budget expects a decimal integer from 1 to 9007199254740991, got ''");
    expect((await cliErrorOf(() => buildCreateInput({ every: '1h', budget: '10', 'tick-interval-ms': '1e3' }))).message).toContain(
      '--tick-interval-ms expects a decimal integer from 100 to 2147483647',
    );
  });
});
