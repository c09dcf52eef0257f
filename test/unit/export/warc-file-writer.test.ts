// Files on disk: a warcinfo record opening each file, rotation before the size limit, one gzip
// member per record, no overwriting.
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readWarcRecords, serializeWarcRecord, warcField, WarcFileWriter, warcFileName, warcNaming, type WarcRecordInput } from '../../../src/export/index.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'warc-writer-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const record = (n: number, bytes: number): WarcRecordInput => ({
  type: 'resource',
  recordId: `<urn:uuid:00000000-0000-5000-8000-${String(n).padStart(12, '0')}>`,
  date: new Date(0),
  targetUri: `http://example.com/${n}`,
  block: Buffer.alloc(bytes, 'x'),
});

const writerFor = (gzip: boolean, maxFileBytes: number) =>
  new WarcFileWriter({ naming: { directory: dir, stem: 'test', serialOnFirst: true, gzip }, maxFileBytes, warcinfoFields: [['software', 'test']], date: new Date(0) });

describe('WarcFileWriter', () => {
  it('starts a new file, with its own warcinfo, before a group would pass the limit; a group is never split', async () => {
    // A group is 1,600 bytes and a warcinfo about 400: two groups fit in 4,000 bytes, three do not.
    const writer = writerFor(false, 4000);
    for (let n = 0; n < 5; n += 1) await writer.writeGroup([record(2 * n, 600), record(2 * n + 1, 300)]);
    const files = await writer.close();
    expect(files.map((file) => path.basename(file))).toEqual(['test-00000.warc', 'test-00001.warc', 'test-00002.warc']);
    const seen: string[] = [];
    for (const file of files) {
      const bytes = await readFile(file);
      expect(bytes.length).toBeLessThanOrEqual(4000);
      const records = readWarcRecords(bytes);
      expect(records[0] && warcField(records[0], 'WARC-Type')).toBe('warcinfo');
      expect(warcField(records[0]!, 'WARC-Filename')).toBe(path.basename(file));
      const warcinfoId = warcField(records[0]!, 'WARC-Record-ID');
      for (const rec of records.slice(1)) {
        expect(warcField(rec, 'WARC-Warcinfo-ID')).toBe(warcinfoId);
        seen.push(warcField(rec, 'WARC-Target-URI')!);
      }
      // Pairs stay together: every file holds whole groups.
      expect((records.length - 1) % 2).toBe(0);
    }
    expect(seen).toEqual(Array.from({ length: 10 }, (_, n) => `http://example.com/${n}`));
    expect(await readdir(dir)).not.toContainEqual(expect.stringMatching(/\.open$/));
  });

  it('gives a group larger than the limit a file of its own', async () => {
    const writer = writerFor(false, 1000);
    await writer.writeGroup([record(1, 10)]);
    await writer.writeGroup([record(2, 5000)]);
    await writer.writeGroup([record(3, 10)]);
    const files = await writer.close();
    expect(files.map((file) => readWarcRecords(readFileSync(file)).length)).toEqual([2, 2, 2]);
  });

  it('gzips each record as its own member', async () => {
    const writer = writerFor(true, 1_000_000);
    await writer.writeGroup([record(1, 100), record(2, 100)]);
    const [file] = await writer.close();
    expect(file).toMatch(/test-00000\.warc\.gz$/);
    const bytes = await readFile(file!);
    const records = readWarcRecords(bytes);
    expect(records).toHaveLength(3);
    // Walk the members: each one, decompressed alone, is exactly one serialized record.
    const members = splitGzipMembers(bytes);
    expect(members).toHaveLength(3);
    expect(gunzipSync(members[1]!).equals(serializeWarcRecord({ ...record(1, 100), fields: [['WARC-Warcinfo-ID', warcField(records[0]!, 'WARC-Record-ID')!]] }))).toBe(true);
  });

  it('never overwrites an existing file', async () => {
    const first = writerFor(false, 1000);
    await first.close();
    const second = writerFor(false, 1000);
    await expect(second.writeGroup([record(1, 1)])).rejects.toThrow(/exists/);
  });
});

describe('file names', () => {
  it('numbers files after the first when the caller named it, and always otherwise', () => {
    const named = warcNaming({ file: '/tmp/out/crawl.warc.gz' }, new Date('2025-03-04T05:06:07Z'));
    expect(named).toEqual({ directory: '/tmp/out', stem: 'crawl', serialOnFirst: false, gzip: true });
    expect([0, 1, 2].map((serial) => warcFileName(named, serial))).toEqual(['crawl.warc.gz', 'crawl-00001.warc.gz', 'crawl-00002.warc.gz']);
    const generated = warcNaming({ crawlId: 'a/b', directory: 'out' }, new Date('2025-03-04T05:06:07Z'));
    expect(warcFileName(generated, 0)).toBe('crawl-a_b-20250304050607-00000.warc');
    expect(() => warcNaming({ file: 'x.txt' }, new Date())).toThrow(/\.warc/);
    expect(() => warcNaming({ file: 'x.warc', gzip: true }, new Date())).toThrow(/gzip/);
  });
});

/** Byte ranges of the gzip members of a file, found by inflating one member at a time. */
function splitGzipMembers(bytes: Buffer): Buffer[] {
  const members: Buffer[] = [];
  let at = 0;
  while (at < bytes.length) {
    // Find the shortest prefix from `at` that is a complete member; members are small here.
    let end = at + 18;
    for (; end <= bytes.length; end += 1) {
      if (end < bytes.length && !(bytes[end] === 0x1f && bytes[end + 1] === 0x8b)) continue;
      try {
        gunzipSync(bytes.subarray(at, end));
        break;
      } catch {
        // not the end of this member yet
      }
    }
    members.push(bytes.subarray(at, end));
    at = end;
  }
  return members;
}
