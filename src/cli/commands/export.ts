import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { iterateFetches } from '../../storage/postgres/fetch-repository.js';
import { dataDirOption, defaultDataDir, parseCommandArgs } from '../args.js';
import { CliError } from '../cli-error.js';
import { connectDatabase } from '../client.js';
import { connectServices } from '../services.js';

export const exportUsage = `usage: crawler export [--format jsonl] [--crawl ID] [--output FILE] [--data-dir DIR]

Writes the stored fetch records: one JSON line per fetch with url, finalUrl, status, fetchedAt,
contentHash, bodyKey and generation (all crawls unless --crawl).`;

export async function exportCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(
    argv,
    { ...dataDirOption, format: { type: 'string' }, crawl: { type: 'string' }, output: { type: 'string' } },
    exportUsage,
  );
  const format = values.format ?? 'jsonl';
  if (format !== 'jsonl') throw new CliError(`unknown export format '${format}': use jsonl`, 2);
  const dataDir = defaultDataDir(values['data-dir']);
  const endpoints = await connectServices({ dataDir, start: false, need: ['postgres'] });
  const pool = await connectDatabase(endpoints);
  const out: Writable = values.output ? createWriteStream(values.output) : process.stdout;
  let count = 0;
  try {
    for await (const fetch of iterateFetches(pool, values.crawl)) {
      const line = JSON.stringify({
        url: fetch.url,
        finalUrl: fetch.finalUrl,
        status: fetch.status,
        outcome: fetch.outcome,
        fetchedAt: fetch.fetchedAt.toISOString(),
        contentHash: fetch.rawHash,
        bodyKey: fetch.bodyKey,
        generation: fetch.generation,
        crawlId: fetch.crawlId,
      });
      if (!out.write(`${line}\n`)) await new Promise((resolve) => out.once('drain', resolve));
      count += 1;
    }
  } finally {
    await pool.end();
    if (values.output) await new Promise((resolve) => out.end(resolve));
  }
  if (values.output) process.stderr.write(`wrote ${count} fetch records to ${values.output}\n`);
  return 0;
}
