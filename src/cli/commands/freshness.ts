/**
 * `crawler sla` and `crawler tier`: freshness promises and value tiers by URL prefix, stored in
 * Postgres and applied to the URLs known under the prefix and to every URL recorded later, so no
 * operator writes SQL (docs/storage-and-recrawl.md, "Freshness SLAs and value tiers").
 */
import { tryCanonicalizeUrl, redactUserinfo } from '../../domain/url/index.js';
import { deleteSla, deleteTierRule, listSlas, listTierRules, setSla, setTierRule, stalenessReport } from '../../storage/postgres/freshness-repository.js';
import { dataDirOption, defaultDataDir, integerOption, parseCommandArgs } from '../args.js';
import { CliError } from '../cli-error.js';
import { connectDatabase } from '../client.js';
import { describeStaleness, formatDurationMs } from '../freshness-lines.js';
import { connectServices } from '../services.js';

export const slaUsage = `usage: crawler sla set --prefix URL_PREFIX --max-staleness DURATION [--tier N] [--data-dir DIR]
       crawler sla list [--json]
       crawler sla delete --prefix URL_PREFIX

A freshness promise: every URL under URL_PREFIX fetched successfully within DURATION (90s, 15m,
1h, 1d). Recrawl cycles plan an SLA's URLs before anything else, those closest to breaching first,
and say so when their budget cannot keep every promise (\`crawler schedule describe\`). --tier N
also sets the value tier of its URLs (0 most valuable). Applied at once to the URLs known under the
prefix and to every URL recorded later; the longest matching prefix wins. list shows each SLA's
staleness (now - last successful fetch): p50, p95, max, and the URLs past it now.`;

export const tierUsage = `usage: crawler tier set --prefix URL_PREFIX --tier N [--data-dir DIR]
       crawler tier list [--json]
       crawler tier delete --prefix URL_PREFIX

The value tier of the URLs under URL_PREFIX (0 most valuable; the recrawl cycles' --value-tiers
say what each is worth, default 16, 4, 1, 0.25), applied at once to the URLs known under it and to
every URL recorded later; the longest matching prefix wins. Deleting a rule gives its URLs the next
rule's tier, or the default (2).`;

/** Most value tiers a rule may name. */
const MAX_TIER = 99;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000 };

/** "90s", "15m", "1h", "1.5d" as ms, at least `minMs`; CliError naming `flag` otherwise. */
export function parseDurationOption(flag: string, text: string, minMs: number): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min|h|d)\s*$/.exec(text);
  const ms = match ? Math.round(Number(match[1]) * UNIT_MS[match[2]!]!) : Number.NaN;
  if (!Number.isFinite(ms) || ms < minMs) throw new CliError(`${flag} expects a duration like 30s, 15m, 1h or 1d, at least ${formatDurationMs(minMs)}, got '${text}'`, 2);
  return ms;
}

/** A URL prefix in canonical form (the form URLs are stored in), or CliError. */
export function prefixOption(value: string | undefined, usage: string): string {
  if (value === undefined) throw new CliError(`--prefix URL_PREFIX is required\n\n${usage}`, 2);
  const result = tryCanonicalizeUrl(value);
  if (!result.ok) throw new CliError(`--prefix '${redactUserinfo(value)}' is not an absolute http(s) URL prefix (${result.error.message}); write it like https://shop.example/prices/`, 2);
  return result.value.url;
}

const options = { ...dataDirOption, prefix: { type: 'string' }, 'max-staleness': { type: 'string' }, tier: { type: 'string' }, json: { type: 'boolean' } } as const;

export async function slaCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, options, slaUsage);
  const action = positionals[0];
  if (action !== 'set' && action !== 'list' && action !== 'delete') throw new CliError(`sla needs an action: set, list or delete\n\n${slaUsage}`, 2);
  const prefix = action === 'list' ? undefined : prefixOption(values.prefix, slaUsage);
  const maxStalenessMs = action === 'set' ? parseDurationOption('--max-staleness', values['max-staleness'] ?? '', 1_000) : undefined;
  const tier = integerOption('tier', values.tier, 0, MAX_TIER);
  if (action !== 'set' && (values['max-staleness'] !== undefined || tier !== undefined)) throw new CliError(`--max-staleness and --tier go with sla set\n\n${slaUsage}`, 2);
  return withDatabase(values['data-dir'], async (pool) => {
    if (action === 'set') {
      const { sla, urls } = await setSla(pool, { prefix: prefix!, maxStalenessMs: maxStalenessMs!, ...(tier === undefined ? {} : { tier }) });
      say(`SLA ${sla.id} set: every URL under ${sla.prefix} within ${formatDurationMs(sla.maxStalenessMs)}${sla.tier === null ? '' : `, value tier ${sla.tier}`}; ${urls} known URLs under it, and every new one`);
    } else if (action === 'delete') {
      if (!(await deleteSla(pool, prefix!))) throw new CliError(`no SLA for ${prefix!}: \`crawler sla list\` shows them`);
      say(`SLA for ${prefix!} deleted`);
    } else {
      const [slas, staleness] = await Promise.all([listSlas(pool), stalenessReport(pool, Date.now())]);
      if (values.json) say(JSON.stringify(slas.map((sla) => ({ ...sla, staleness: staleness.bySla.find((row) => row.slaId === sla.id) ?? null }))));
      else if (slas.length === 0) say('no freshness SLAs: `crawler sla set --prefix URL_PREFIX --max-staleness 1h` makes one');
      else for (const line of describeStaleness({ ...staleness, byTier: [] }, '')) say(line);
    }
    return 0;
  });
}

export async function tierCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, options, tierUsage);
  const action = positionals[0];
  if (action !== 'set' && action !== 'list' && action !== 'delete') throw new CliError(`tier needs an action: set, list or delete\n\n${tierUsage}`, 2);
  const prefix = action === 'list' ? undefined : prefixOption(values.prefix, tierUsage);
  const tier = integerOption('tier', values.tier, 0, MAX_TIER);
  if (action === 'set' && tier === undefined) throw new CliError(`tier set needs --tier N (0 most valuable)\n\n${tierUsage}`, 2);
  return withDatabase(values['data-dir'], async (pool) => {
    if (action === 'set') {
      const urls = await setTierRule(pool, { prefix: prefix!, tier: tier! });
      say(`value tier ${tier!} for every URL under ${prefix!}: ${urls} known URLs, and every new one`);
    } else if (action === 'delete') {
      if (!(await deleteTierRule(pool, prefix!))) throw new CliError(`no tier rule for ${prefix!}: \`crawler tier list\` shows them`);
      say(`tier rule for ${prefix!} deleted`);
    } else {
      const rules = await listTierRules(pool);
      if (values.json) say(JSON.stringify(rules));
      else if (rules.length === 0) say('no tier rules: `crawler tier set --prefix URL_PREFIX --tier 0` makes one');
      else for (const rule of rules) say(`tier ${rule.tier}  ${rule.prefix}`);
    }
    return 0;
  });
}

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function withDatabase(dataDirValue: string | undefined, run: (pool: Awaited<ReturnType<typeof connectDatabase>>) => Promise<number>): Promise<number> {
  const endpoints = await connectServices({ dataDir: defaultDataDir(dataDirValue), start: false, need: ['postgres'] });
  const pool = await connectDatabase(endpoints);
  try {
    return await run(pool);
  } finally {
    await pool.end();
  }
}
