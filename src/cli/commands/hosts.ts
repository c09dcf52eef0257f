import { tryCanonicalizeUrl } from '../../domain/url/index.js';
import { setHostImportance } from '../../storage/postgres/host-repository.js';
import { dataDirOption, defaultDataDir, parseCommandArgs } from '../args.js';
import { CliError } from '../cli-error.js';
import { connectDatabase } from '../client.js';
import { connectServices } from '../services.js';

export const hostsUsage = `usage: crawler hosts set-importance --host HOST --importance V|none [--data-dir DIR]

set-importance  how important HOST is, from 0 to 1, in the priority of the URLs crawls register on it
                from now on (docs/discovery.md, "Priority"); 'none' goes back to the importance its
                in-links from other hosts give it (default: neutral, 0.5, without any)`;

export async function hostsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...dataDirOption, host: { type: 'string' }, importance: { type: 'string' } }, hostsUsage);
  if (positionals[0] !== 'set-importance') throw new CliError(`unknown or missing action${positionals[0] ? ` '${positionals[0]}'` : ''}\n\n${hostsUsage}`, 2);
  if (!values.host) throw new CliError(`--host is required\n\n${hostsUsage}`, 2);
  const raw = values.importance;
  const importance = raw === 'none' ? null : raw !== undefined && /^(?:0|1|0?\.\d+|1\.0*)$/.test(raw) ? Number(raw) : Number.NaN;
  if (importance !== null && !(importance >= 0 && importance <= 1)) throw new CliError(`--importance expects a number from 0 to 1 (e.g. 0.8) or none, got '${raw ?? ''}'`, 2);
  // The host as the crawler spells it (lower case, IDNA, IPv6 brackets), whatever was typed.
  const canonical = /[/:@?#\s]/.test(values.host.replace(/^\[.*\]$/, '')) ? undefined : tryCanonicalizeUrl(`http://${values.host}/`);
  if (!canonical?.ok) throw new CliError(`--host '${values.host}' is not a host name; give one like shop.example.com`, 2);
  const host = canonical.value.host;
  const endpoints = await connectServices({ dataDir: defaultDataDir(values['data-dir']), start: false, need: ['postgres'] });
  const pool = await connectDatabase(endpoints);
  try {
    await setHostImportance(pool, host, importance);
    process.stdout.write(importance === null ? `${host}: importance from its in-links\n` : `${host}: importance ${importance}\n`);
    return 0;
  } finally {
    await pool.end();
  }
}
