import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError } from './cli-error.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** node:util parseArgs with errors that name the bad argument and exit 2. */
export function parseCommandArgs<T extends Options>(argv: string[], options: T, usage: string) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n\n${usage}`, 2);
  }
}

export function integerOption(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min) throw new CliError(`--${name} expects an integer >= ${min}, got '${value}'`, 2);
  return parsed;
}

export const dataDirOption = { 'data-dir': { type: 'string' } } as const;
export const defaultDataDir = (value: string | undefined): string => value ?? process.env['CRAWLER_DATA_DIR'] ?? '.crawler-data';
