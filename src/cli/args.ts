import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError } from './cli-error.js';
import { LOG_FORMATS, type LogFormat } from '../workers/log-format.js';
import { readProxyCredentials, type ProxyCredentials } from '../http/proxy-credentials.js';
import { COST_MODEL_KINDS, type CostModelKind } from '../domain/recrawl/index.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** node:util parseArgs with errors that name the bad argument and exit 2. */
export function parseCommandArgs<T extends Options>(argv: string[], options: T, usage: string) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n\n${usage}`, 2);
  }
}

/** Longest timer Node keeps (2^31 - 1 ms, about 24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * `--name`'s value as an integer from `min` to `max`, undefined when the flag is absent. Only
 * plain decimal digits pass: Number() would read '' as 0 (`--min-host-delay-ms ""` meaning no
 * delay at all), and '0x10', '1e3', '0b11', '-0', '+5' and ' 5' as numbers the user never wrote.
 * Throws CliError (exit 2) naming the flag and the range.
 */
export function integerOption(name: string, value: string | undefined, min: number, max: number = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  const parsed = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
    throw new CliError(`--${name} expects a decimal integer from ${min} to ${max}, got '${value}'`, 2);
  }
  return parsed;
}

export const dataDirOption = { 'data-dir': { type: 'string' } } as const;
export const defaultDataDir = (value: string | undefined): string => value ?? process.env['CRAWLER_DATA_DIR'] ?? '.crawler-data';

/**
 * Repeated `--change-field NAME=SELECTOR` as CrawlConfig.changeFields; undefined when none is
 * given. Only the first '=' splits, so selectors such as `[itemprop=price]` pass whole. Names and
 * selectors are checked by resolveCrawlConfig.
 */
export function changeFieldsOption(values: readonly string[] | undefined): Record<string, string> | undefined {
  if (values === undefined || values.length === 0) return undefined;
  const fields = new Map<string, string>();
  for (const value of values) {
    const at = value.indexOf('=');
    const name = value.slice(0, Math.max(at, 0)).trim();
    if (at < 0 || name === '') {
      throw new CliError(`--change-field expects NAME=SELECTOR, e.g. --change-field price=.price, got '${value}'`, 2);
    }
    if (fields.has(name)) throw new CliError(`--change-field ${name} is given twice; give each field once`, 2);
    fields.set(name, value.slice(at + 1).trim());
  }
  return Object.fromEntries(fields);
}

/**
 * Repeated `--proxy URL` and `--proxy-session-requests N` as CrawlConfig.proxy; undefined when no
 * proxy is given. The URLs are checked by resolveCrawlConfig (which refuses user:password in them).
 */
export function proxyOption(urls: readonly string[] | undefined, sessionRequests: string | undefined): { urls: string[]; sessionRequests?: number } | undefined {
  if (urls === undefined || urls.length === 0) {
    if (sessionRequests !== undefined) throw new CliError('--proxy-session-requests needs at least one --proxy URL', 2);
    return undefined;
  }
  const session = integerOption('proxy-session-requests', sessionRequests, 1, 1_000_000);
  return { urls: [...urls], ...(session === undefined ? {} : { sessionRequests: session }) };
}

/**
 * The proxy credentials a process's worker uses: CRAWLER_PROXY_CREDENTIALS, then `--proxy-credentials-file`
 * (else CRAWLER_PROXY_CREDENTIALS_FILE). A file that cannot be read or parsed exits 2, naming the
 * file and line, never its content.
 */
export async function proxyCredentialsOption(file: string | undefined): Promise<ProxyCredentials> {
  try {
    return await readProxyCredentials({ env: process.env, ...(file === undefined ? {} : { file }) });
  } catch (error) {
    throw new CliError(`--proxy-credentials-file: ${(error as Error).message}`, 2);
  }
}

/**
 * `--cost-model KIND[:PRICE]` as CrawlConfig.costModel: gateway-bytes:8 (8 per GB through a
 * gateway), successful-requests:0.002 (per successful request), direct-bytes; undefined when absent.
 */
export function costModelOption(value: string | undefined): { kind: CostModelKind; price: number } | undefined {
  if (value === undefined) return undefined;
  const [kind = '', price, ...rest] = value.split(':');
  const priceValue = price === undefined ? 0 : /^[0-9]+(\.[0-9]+)?$/.test(price) ? Number(price) : Number.NaN;
  if (!(COST_MODEL_KINDS as readonly string[]).includes(kind) || rest.length > 0 || !Number.isFinite(priceValue)) {
    throw new CliError(`--cost-model expects KIND[:PRICE] with KIND one of ${COST_MODEL_KINDS.join(', ')} and PRICE per GB or per successful request (e.g. gateway-bytes:8), got '${value}'`, 2);
  }
  return { kind: kind as CostModelKind, price: priceValue };
}

/** `--log-format text|json`: how a process that runs a worker writes its log (src/workers/log-format.ts). */
export function logFormatOption(value: string | undefined): LogFormat {
  if (value === undefined) return 'text';
  if ((LOG_FORMATS as readonly string[]).includes(value)) return value as LogFormat;
  throw new CliError(`--log-format '${value}' is not a log format: use one of ${LOG_FORMATS.join(', ')}`, 2);
}
