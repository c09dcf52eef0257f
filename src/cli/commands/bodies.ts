import { BodyStore } from '../../storage/object-store/body-store.js';
import { DEFAULT_BODY_GRACE_MS, pruneBodies } from '../../storage/body-retention.js';
import { dataDirOption, defaultDataDir, parseCommandArgs } from '../args.js';
import { CliError } from '../cli-error.js';
import { connectDatabase } from '../client.js';
import { connectServices } from '../services.js';

const MS_PER_DAY = 86_400_000;

export const bodiesUsage = `usage: crawler bodies prune [--older-than DAYS] [--grace-minutes M] [--dry-run] [--json] [--data-dir DIR]

prune  deletes stored bodies (MinIO objects and their rows) that no fetch record references:
       bodies whose fetches were deleted, and objects a fetch uploaded but never recorded. A
       pack of small bodies goes once none of its bodies is referenced (a dry run counts the
       packs the rows it would delete free, as a real run would).
       --older-than DAYS   only bodies stored more than DAYS ago (fractions allowed)
       --grace-minutes M   never anything younger than M minutes, whatever --older-than says
                           (default ${DEFAULT_BODY_GRACE_MS / 60_000}: covers a fetch between upload and commit)
       --dry-run           report what would be deleted, delete nothing
Safe while crawls run: see docs/warc-export.md (retention).`;

export async function bodiesCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    argv,
    { ...dataDirOption, 'older-than': { type: 'string' }, 'grace-minutes': { type: 'string' }, 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } },
    bodiesUsage,
  );
  const action = positionals[0];
  if (action !== 'prune') throw new CliError(`${action ? `unknown bodies action '${action}'` : 'missing action'}\n\n${bodiesUsage}`, 2);
  const olderThanDays = nonNegative('older-than', values['older-than']);
  const graceMinutes = nonNegative('grace-minutes', values['grace-minutes']);
  const dataDir = defaultDataDir(values['data-dir']);
  const endpoints = await connectServices({ dataDir, start: false, need: ['postgres', 's3'] });
  const pool = await connectDatabase(endpoints);
  try {
    const summary = await pruneBodies(
      { pool, bodies: new BodyStore(endpoints.s3), now: Date.now },
      {
        dryRun: values['dry-run'] === true,
        ...(olderThanDays === undefined ? {} : { olderThanMs: olderThanDays * MS_PER_DAY }),
        ...(graceMinutes === undefined ? {} : { graceMs: graceMinutes * 60_000 }),
      },
    );
    if (values.json) {
      process.stdout.write(`${JSON.stringify(summary)}\n`);
    } else {
      const verb = summary.dryRun ? 'would delete' : 'deleted';
      process.stdout.write(
        `${verb} ${summary.deleted.objects} object(s) (${summary.deleted.packs} of them packs) and ${summary.deleted.rows} row(s), ${summary.deleted.storedBytes} stored bytes, ` +
          `of bodies unreferenced and older than ${summary.cutoff}; kept ${summary.kept.referenced} referenced meanwhile, ${summary.kept.tooYoung} too young\n`,
      );
    }
    return 0;
  } finally {
    await pool.end();
  }
}

/** A plain decimal (digits, an optional fraction): Number() would also take '0x10', '1e3' or ' 5'. */
function nonNegative(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = /^[0-9]+(\.[0-9]+)?$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(parsed)) throw new CliError(`--${name} expects a decimal number >= 0 such as 7 or 0.5, got '${value}'`, 2);
  return parsed;
}
