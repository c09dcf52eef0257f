// `crawler crawl`'s flags into a CrawlConfig: every option is checked before anything starts, and a
// bad one exits 2 naming its flag (or its file, entry and field).
import { readFile } from 'node:fs/promises';
import { CRAWL_CONFIG_INTEGER_RANGES, CrawlConfigError, resolveCrawlConfig, type CrawlConfig, type CrawlTrapConfig, type IntegerRange } from '../../config/crawl-config.js';
import { DEFAULT_RENDER_CONFIG, type CrawlRenderConfig } from '../../config/render-config.js';
import { DEFAULT_RENDER_BUDGET, isRenderMode, type RenderMode } from '../../domain/render/index.js';
import { QueryPolicyConfigError, compileQueryPolicies, redactUserinfo, type OriginQueryPolicy } from '../../domain/url/index.js';
import { changeFieldsOption, costModelOption, integerOption, proxyOption } from '../args.js';
import { CliError } from '../cli-error.js';
import { flagOfConfigField } from '../config-flags.js';

export type CrawlValues = Record<string, string | boolean | string[] | undefined>;

/**
 * A crawl run from the command line ends: URLs that only an unreachable robots.txt holds back wait
 * for it 3 min (asked again every minute), then are deferred and counted in the summary. Recrawl
 * cycles and crawls started otherwise keep RFC 9309's longer wait. --politeness overrides both.
 */
export const ONE_SHOT_ROBOTS_POLITENESS = Object.freeze({ robotsUnreachablePatienceMs: 180_000, robotsUnreachableRetryMs: 60_000 });

export function oneShot(config: CrawlConfig): CrawlConfig {
  return { ...config, politeness: { ...ONE_SHOT_ROBOTS_POLITENESS, ...config.politeness } };
}

/** Every option is checked here, before anything starts: a bad one exits 2 and names itself. */
export async function buildConfig(values: CrawlValues, defaults: { defaultRenderMode?: RenderMode } = {}): Promise<CrawlConfig> {
  const text = (name: string): string | undefined => values[name] as string | undefined;
  const integer = (name: string, range: IntegerRange): number | undefined => integerOption(name, text(name), range.min, range.max);
  const ranges = CRAWL_CONFIG_INTEGER_RANGES;
  const scopeMode = text('scope');
  const allowPrefixes = (values['allow-prefix'] as string[] | undefined) ?? [];
  const denyPrefixes = (values['deny-prefix'] as string[] | undefined) ?? [];
  const policiesFile = text('query-policies');
  const trapsFile = text('trap-options');
  const queryPolicies = policiesFile === undefined ? undefined : await readQueryPolicies(policiesFile);
  const traps = trapsFile === undefined ? undefined : await readTrapOptions(trapsFile);
  const fpRate = text('seen-filter-fp-rate');
  const changeFields = changeFieldsOption(values['change-field'] as string[] | undefined);
  const proxy = proxyOption(values['proxy'] as string[] | undefined, text('proxy-session-requests'));
  const costModel = costModelOption(text('cost-model'));
  const partial: Partial<CrawlConfig> = {
    ...(values['max-pages'] !== undefined ? { maxPages: integer('max-pages', ranges.maxPages)! } : {}),
    ...(values['max-depth'] !== undefined ? { maxDepth: integer('max-depth', ranges.maxDepth)! } : {}),
    ...(values['min-host-delay-ms'] !== undefined ? { minHostDelayMs: integer('min-host-delay-ms', ranges.minHostDelayMs)! } : {}),
    ...(values['max-in-flight'] !== undefined ? { maxInFlight: integer('max-in-flight', ranges.maxInFlight)! } : {}),
    ...(values['max-discovered-urls'] !== undefined ? { maxDiscoveredUrls: integer('max-discovered-urls', ranges.maxDiscoveredUrls)! } : {}),
    ...(values['seen-filter-capacity'] !== undefined ? { seenFilterCapacity: integer('seen-filter-capacity', ranges.seenFilterCapacity)! } : {}),
    ...(fpRate !== undefined ? { seenFilterFalsePositiveRate: Number(fpRate) } : {}),
    ...(values['user-agent'] !== undefined ? { userAgent: text('user-agent')! } : {}),
    ...(values['allow-private-networks'] ? { allowPrivateNetworks: true } : {}),
    ...(values['follow-nofollow'] ? { followNofollowLinks: true } : {}),
    ...(scopeMode !== undefined || allowPrefixes.length > 0 || denyPrefixes.length > 0
      ? { scope: { mode: (scopeMode ?? 'same-registrable-domain') as CrawlConfig['scope']['mode'], allowPrefixes, denyPrefixes } }
      : {}),
    ...(queryPolicies !== undefined ? { queryPolicies } : {}),
    ...(traps !== undefined ? { traps } : {}),
    ...(values['listing-page'] !== undefined ? { listingPages: values['listing-page'] as string[] } : {}),
    ...(values['max-concurrent-per-host'] !== undefined ? { maxConcurrentFetchesPerHost: integer('max-concurrent-per-host', ranges.maxConcurrentFetchesPerHost)! } : {}),
    ...(values['max-body-bytes'] !== undefined ? { maxBodyBytes: integer('max-body-bytes', ranges.maxBodyBytes)! } : {}),
    ...(values['max-decompressed-bytes'] !== undefined ? { maxDecompressedBytes: integer('max-decompressed-bytes', ranges.maxDecompressedBytes)! } : {}),
    ...(values['connect-timeout-ms'] !== undefined ? { connectTimeoutMs: integer('connect-timeout-ms', ranges.connectTimeoutMs)! } : {}),
    ...(values['first-byte-timeout-ms'] !== undefined ? { firstByteTimeoutMs: integer('first-byte-timeout-ms', ranges.firstByteTimeoutMs)! } : {}),
    ...(values['body-timeout-ms'] !== undefined ? { bodyTimeoutMs: integer('body-timeout-ms', ranges.bodyTimeoutMs)! } : {}),
    ...(text('politeness') !== undefined ? { politeness: parsePolitenessOption(text('politeness')!) } : {}),
    ...(changeFields !== undefined ? { changeFields } : {}),
    ...(text('sitemaps') !== undefined ? { sitemaps: text('sitemaps') as CrawlConfig['sitemaps'] } : {}),
    ...(text('sitemap-priority-cap') !== undefined ? { sitemapPriorityCap: text('sitemap-priority-cap')!.trim() === '' ? Number.NaN : Number(text('sitemap-priority-cap')) } : {}),
    ...(proxy !== undefined ? { proxy: proxy as CrawlConfig['proxy'] } : {}),
    ...(costModel !== undefined ? { costModel } : {}),
    render: renderOptions(values, defaults.defaultRenderMode ?? 'never'),
  };
  try {
    return resolveCrawlConfig(partial);
  } catch (error) {
    if (error instanceof CrawlConfigError) throw new CliError(`invalid option ${flagOfConfigField(error.field)}: ${error.message}`, 2);
    throw error;
  }
}

/** The --render flags; resolveCrawlConfig checks them (a bad value names its flag). */
function renderOptions(values: CrawlValues, defaultMode: RenderMode): CrawlRenderConfig {
  const text = (name: string): string | undefined => values[name] as string | undefined;
  const list = (name: string): string[] => (values[name] as string[] | undefined) ?? [];
  const mode = text('render') ?? defaultMode;
  if (!isRenderMode(mode)) throw new CliError(`invalid option --render: expected never, auto or always, got '${mode}'`, 2);
  const budget = {
    ...DEFAULT_RENDER_BUDGET,
    ...(text('render-max-renders') !== undefined ? { maxRenders: integerOption('render-max-renders', text('render-max-renders'), 0)! } : {}),
    ...(text('render-max-cpu-seconds') !== undefined ? { maxCpuSeconds: integerOption('render-max-cpu-seconds', text('render-max-cpu-seconds'), 0)! } : {}),
    ...(text('render-max-per-host') !== undefined ? { maxRendersPerHost: integerOption('render-max-per-host', text('render-max-per-host'), 0)! } : {}),
  };
  return {
    ...DEFAULT_RENDER_CONFIG,
    mode,
    allow: list('render-allow'),
    deny: list('render-deny'),
    allowOrigins: list('render-allow-origin'),
    budget,
    ...(text('render-settle-ms') !== undefined ? { settleMs: integerOption('render-settle-ms', text('render-settle-ms'), 100, 120_000)! } : {}),
  };
}

/** --politeness takes a JSON object inline; resolveCrawlConfig then checks each knob. */
function parsePolitenessOption(raw: string): CrawlConfig['politeness'] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw) as unknown;
  } catch (error) {
    throw new CliError(`--politeness: not valid JSON (${(error as Error).message}); e.g. --politeness '{"throttleBaseDelayMs": 10000}'`, 2);
  }
  return parsed as CrawlConfig['politeness'];
}

async function readJsonFile(file: string, flag: string, what: string): Promise<unknown> {
  let raw: string;
  try {
    raw = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`${flag}: cannot read ${what} file '${file}': ${(error as Error).message}`, 2);
  }
  try {
    return JSON.parse(raw) as unknown;
  } catch (error) {
    throw new CliError(`${flag}: ${what} file '${file}' is not valid JSON: ${(error as Error).message}`, 2);
  }
}

/** The documented format (docs/url-canonicalization.md), validated here so that errors name the file, entry and field. */
async function readQueryPolicies(file: string): Promise<OriginQueryPolicy[]> {
  const parsed = await readJsonFile(file, '--query-policies', 'query policies');
  try {
    compileQueryPolicies(parsed as OriginQueryPolicy[]);
  } catch (error) {
    if (error instanceof QueryPolicyConfigError) {
      const entry = Array.isArray(parsed) ? (parsed[error.entryIndex] as { origin?: unknown } | undefined) : undefined;
      const origin = typeof entry?.origin === 'string' ? ` (origin ${JSON.stringify(redactUserinfo(entry.origin))})` : '';
      const field = error.field === undefined ? '' : `, field "${error.field}"`;
      throw new CliError(
        `--query-policies: ${file}: entry ${error.entryIndex}${origin}${field}: ${error.message.slice(error.message.indexOf(': ') + 2)} [${error.code}]. Nothing was started.`,
        2,
      );
    }
    throw error;
  }
  return parsed as OriginQueryPolicy[];
}

async function readTrapOptions(file: string): Promise<CrawlTrapConfig> {
  const parsed = await readJsonFile(file, '--trap-options', 'trap options');
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new CliError(`--trap-options: ${file}: expected a JSON object such as {"maxVariantsPerPath": 20}`, 2);
  }
  try {
    resolveCrawlConfig({ traps: parsed as CrawlTrapConfig });
  } catch (error) {
    if (error instanceof CrawlConfigError) throw new CliError(`--trap-options: ${file}: field "${error.field.replace(/^traps\./, '')}": ${error.message.slice(error.message.indexOf(': ') + 2)}`, 2);
    throw error;
  }
  return parsed as CrawlTrapConfig;
}
