import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { exportWarc, WarcExportError } from '../../export/index.js';
import { BodyStore } from '../../storage/object-store/body-store.js';
import { iterateFetches, type FetchRecord } from '../../storage/postgres/fetch-repository.js';
import { canonicalEdgesOf } from '../../storage/postgres/canonical-repository.js';
import { dataDirOption, defaultDataDir, integerOption, parseCommandArgs } from '../args.js';
import { CliError } from '../cli-error.js';
import { connectDatabase } from '../client.js';
import { connectServices } from '../services.js';

export const exportUsage = `usage: crawler export [--format jsonl] [--crawl ID] [--output FILE] [--data-dir DIR]
       crawler export --format warc [--crawl ID] [--output DIR|FILE.warc[.gz]] [--gzip] [--max-file-bytes N]

jsonl  one JSON line per fetch with url, finalUrl, status, fetchedAt, contentHash, bodyKey,
       generation and, for a page with a rel=canonical hint, canonical {url, verdict, reason}
       (all crawls unless --crawl), to stdout or --output FILE.
warc   WARC 1.1 files: response and request records, revisit records for unchanged refetches and
       304s, a metadata record for a page's canonical hint (docs/warc-export.md). --output a folder (default .) for generated names, or a file
       name ending in .warc or .warc.gz; --gzip compresses each record (implied by .gz);
       --max-file-bytes starts a new file before one grows past N bytes (default 1000000000).`;

export async function exportCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(
    argv,
    { ...dataDirOption, format: { type: 'string' }, crawl: { type: 'string' }, output: { type: 'string' }, gzip: { type: 'boolean' }, 'max-file-bytes': { type: 'string' } },
    exportUsage,
  );
  const format = values.format ?? 'jsonl';
  if (format === 'warc') return warcExport(values);
  if (format !== 'jsonl') throw new CliError(`unknown export format '${format}': use jsonl or warc`, 2);
  if (values.gzip !== undefined || values['max-file-bytes'] !== undefined) throw new CliError('--gzip and --max-file-bytes apply to --format warc', 2);
  const dataDir = defaultDataDir(values['data-dir']);
  const endpoints = await connectServices({ dataDir, start: false, need: ['postgres'] });
  const pool = await connectDatabase(endpoints);
  const out: Writable = values.output ? createWriteStream(values.output) : process.stdout;
  let count = 0;
  const writeLines = async (fetches: FetchRecord[]): Promise<void> => {
    // The canonical edges of a batch of fetches in one statement.
    const canonical = await canonicalEdgesOf(pool, [...new Set(fetches.map((fetch) => fetch.fingerprint))]);
    for (const fetch of fetches) {
      const edge = canonical.get(fetch.fingerprint);
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
        ...(edge === undefined ? {} : { canonical: edge }),
      });
      if (!out.write(`${line}\n`)) await new Promise((resolve) => out.once('drain', resolve));
      count += 1;
    }
  };
  try {
    let batch: FetchRecord[] = [];
    for await (const fetch of iterateFetches(pool, values.crawl)) {
      batch.push(fetch);
      if (batch.length >= 500) {
        await writeLines(batch);
        batch = [];
      }
    }
    await writeLines(batch);
  } finally {
    await pool.end();
    if (values.output) await new Promise((resolve) => out.end(resolve));
  }
  if (values.output) process.stderr.write(`wrote ${count} fetch records to ${values.output}\n`);
  return 0;
}

async function warcExport(values: { 'data-dir'?: string; crawl?: string; output?: string; gzip?: boolean; 'max-file-bytes'?: string }): Promise<number> {
  const maxFileBytes = integerOption('max-file-bytes', values['max-file-bytes'], 1);
  const output = values.output ?? '.';
  const asFile = /\.warc(\.gz)?$/.test(output);
  const dataDir = defaultDataDir(values['data-dir']);
  const endpoints = await connectServices({ dataDir, start: false, need: ['postgres', 's3'] });
  const pool = await connectDatabase(endpoints);
  try {
    const summary = await exportWarc(
      { pool, bodies: new BodyStore(endpoints.s3), now: Date.now, log: (line) => process.stderr.write(`${line}\n`) },
      {
        ...(values.crawl === undefined ? {} : { crawlId: values.crawl }),
        ...(asFile ? { file: output } : { directory: output }),
        ...(values.gzip === undefined ? {} : { gzip: values.gzip }),
        ...(maxFileBytes === undefined ? {} : { maxFileBytes }),
      },
    );
    const { records, skipped } = summary;
    process.stderr.write(
      `wrote ${summary.files.length} WARC file(s), ${summary.bytes} bytes: ${records.response} response, ${records.revisit} revisit, ${records.request} request, ${records.metadata} metadata${records.conversion > 0 ? `, ${records.conversion} conversion (rendered DOM)` : ''} record(s)` +
        ` (${skipped.notArchived} fetch(es) not archived, ${skipped.bodyMissing} with a missing body, ${skipped.requestUnknown} without recorded request headers)\n`,
    );
    for (const file of summary.files) process.stdout.write(`${file}\n`);
    return skipped.bodyMissing > 0 ? 1 : 0;
  } catch (error) {
    if (error instanceof WarcExportError) throw new CliError(error.message, error.code === 'WARC_INVALID_OPTION' ? 2 : 1);
    throw error;
  } finally {
    await pool.end();
  }
}
