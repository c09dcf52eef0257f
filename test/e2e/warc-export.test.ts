// WARC export and body retention on the real stack: a test web crawled twice (the second crawl
// sends conditional requests), exported with `crawler export --format warc`, checked by warcio
// (a standard WARC tool) and record by record against the server's request log and the stores;
// then `crawler bodies prune` against referenced and orphan bodies, and against a fetch that
// commits while a prune runs.
import { createHash } from 'node:crypto';
import { execFile, execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWarcRecords, splitHttpBlock, warcField, type ParsedWarcRecord } from '../../src/export/index.js';
import { pruneBodies } from '../../src/storage/body-retention.js';
import { bodyKeyFor, packKeyOf } from '../../src/storage/object-store/body-key.js';
import { BodyPacker } from '../../src/storage/object-store/body-packer.js';
import { recordBody, storedBodyKeys } from '../../src/storage/postgres/body-repository.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { generateWeb, startTestWeb, type RequestLogEntry, type TestWeb } from '../support/test-web/index.js';

const execFileAsync = promisify(execFile);
const IDENTICAL = 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest';
const NOT_MODIFIED = 'http://netpreserve.org/warc/1.1/revisit/server-not-modified';

interface FetchRow {
  fingerprint: string;
  generation: number;
  crawl_id: string;
  final_url: string;
  outcome: string;
  status: number;
  raw_hash: string | null;
  fetched_at: Date;
}

/** warcio, the reference Python WARC library, installed for the test run when missing. */
function ensureWarcio(): void {
  try {
    execFileSync('python3', ['-c', 'import warcio'], { stdio: 'ignore' });
  } catch {
    execFileSync('python3', ['-m', 'pip', 'install', '--quiet', 'warcio'], { stdio: 'inherit' });
  }
}

describe('WARC export and body retention', () => {
  let harness: Harness;
  let web: TestWeb;
  let firstLog: RequestLogEntry[] = [];
  let secondLog: RequestLogEntry[] = [];
  let fetches: FetchRow[] = [];
  const outDir = path.join(process.cwd(), '.test-data', `warc-export-${process.pid}`);
  const generated = generateWeb({ hosts: 3, pagesPerHost: 6, linksPerPage: 3, crossHostLinkRatio: 0.3, seed: 41, base: '127.41.0.1', robots: 'none' });

  // Validators on some pages (a 'changing' page with rate 0 answers If-None-Match with 304), none
  // on others (the second crawl gets the same bytes again), one page that changes between the
  // crawls, and one served gzip-encoded.
  const reachable = new Set([...generated.expectedReachable(1)].map((url) => url.replace(/^http:\/\/|:1(?=\/)/g, '')));
  let gzipPage = '';
  let changingPage = '';
  generated.spec.hosts.forEach((host, hostIndex) => {
    host.pages.forEach((page, pageIndex) => {
      if (page.path === '/' || !reachable.has(`${host.host}${page.path}`)) return; // roots keep their links visible to the second crawl
      const plainPath = /^\/[A-Za-z0-9/]+(\.html|\/)$/.test(page.path); // canonicalization leaves it as it is
      if (gzipPage === '' && plainPath && typeof page.body === 'string') {
        const html = page.body;
        gzipPage = `${host.host}:{port}${page.path}`;
        page.headers = { ...page.headers, 'content-encoding': 'gzip' };
        page.body = (ctx) => gzipSync(Buffer.from(html.replaceAll('{port}', String(ctx.port))));
      } else if (changingPage === '' && plainPath && hostIndex === 1) {
        changingPage = `${host.host}:{port}${page.path}`;
        // About one change per 100 ms: never the same between the two crawls.
        page.behavior = { kind: 'changing', ratePerDay: 864_000, seed: 7 };
      } else if (pageIndex % 2 === 0) {
        page.behavior = { kind: 'changing', ratePerDay: 0, seed: 1000 + hostIndex * 100 + pageIndex };
      }
    });
  });

  beforeAll(async () => {
    ensureWarcio();
    await rm(outDir, { recursive: true, force: true });
    await mkdir(outDir, { recursive: true });
    web = await startTestWeb(generated.spec);
    harness = await createHarness('warc-export');
    await harness.startWorker();
    const config = { minHostDelayMs: 50, maxPages: 500, maxDepth: 20 };
    expect((await harness.runCrawl({ crawlId: 'warc-1', seeds: generated.seeds(web.port), config })).state).toBe('finished');
    firstLog = [...web.log()];
    web.clearLog();
    expect((await harness.runCrawl({ crawlId: 'warc-2', seeds: generated.seeds(web.port), config })).state).toBe('finished');
    secondLog = [...web.log()];
    const rows = await harness.pool.query<FetchRow>(
      `SELECT encode(fingerprint, 'hex') AS fingerprint, generation, crawl_id, final_url, outcome, status, encode(raw_hash, 'hex') AS raw_hash, fetched_at
       FROM fetches ORDER BY fetched_at, fingerprint, generation`,
    );
    fetches = rows.rows;
  });

  afterAll(async () => {
    await harness?.close();
    await web?.close();
    await rm(outDir, { recursive: true, force: true });
  });

  const pages = (log: RequestLogEntry[]) => log.filter((entry) => entry.path !== '/robots.txt');
  const crawler = (...args: string[]) => execFileAsync('node', ['bin/crawler.js', ...args], { env: harness.childEnv });

  it('the second crawl sent conditional requests and got 304s, identical bodies and a changed one', () => {
    const conditional = pages(secondLog).filter((entry) => entry.ifNoneMatch !== undefined);
    expect(conditional.length).toBeGreaterThan(0);
    expect(pages(secondLog).filter((entry) => entry.status === 304).length).toBeGreaterThan(0);
    expect(pages(firstLog).every((entry) => entry.ifNoneMatch === undefined)).toBe(true);
    const second = fetches.filter((row) => row.crawl_id === 'warc-2');
    expect(second.filter((row) => row.outcome === 'not-modified').length).toBe(pages(secondLog).filter((entry) => entry.status === 304).length);
    const firstHash = new Map(fetches.filter((row) => row.crawl_id === 'warc-1' && row.outcome === 'ok').map((row) => [row.fingerprint, row.raw_hash]));
    expect(second.some((row) => row.outcome === 'ok' && firstHash.get(row.fingerprint) === row.raw_hash)).toBe(true);
    const changed = second.find((row) => row.final_url === `http://${changingPage.replace('{port}', String(web.port))}`);
    expect(changed?.outcome).toBe('ok');
    expect(changed?.raw_hash).not.toBe(firstHash.get(changed!.fingerprint));
  });

  describe('crawler export --format warc (both crawls, gzip, rotated)', () => {
    let files: string[] = [];
    let records: ParsedWarcRecord[] = [];
    const dir = () => path.join(outDir, 'all');

    beforeAll(async () => {
      const { stdout } = await crawler('export', '--format', 'warc', '--output', dir(), '--gzip', '--max-file-bytes', '12000');
      files = stdout.trim().split('\n');
      records = [];
      for (const file of files) records.push(...readWarcRecords(await readFile(file)));
    });

    const ofType = (type: string) => records.filter((record) => warcField(record, 'WARC-Type') === type);
    const byId = () => new Map(records.map((record) => [warcField(record, 'WARC-Record-ID')!, record]));

    it('rotates files at the size limit, each a .warc.gz opening with its own warcinfo record', async () => {
      expect(files.length).toBeGreaterThan(1);
      expect((await readdir(dir())).sort()).toEqual(files.map((file) => path.basename(file)).sort());
      for (const file of files) {
        expect(file).toMatch(/crawl-all-\d{14}-\d{5}\.warc\.gz$/);
        const [first] = readWarcRecords(await readFile(file));
        expect(warcField(first!, 'WARC-Type')).toBe('warcinfo');
        expect(warcField(first!, 'WARC-Filename')).toBe(path.basename(file));
      }
      expect(ofType('warcinfo')).toHaveLength(files.length);
    });

    it('passes warcio check (every block and payload digest) and warcio index sees every record', async () => {
      for (const file of files) {
        const check = await execFileAsync('python3', ['-m', 'warcio.cli', 'check', '-v', file]);
        expect(check.stdout).not.toMatch(/failed/);
      }
      const indexed: Array<Record<string, string>> = [];
      for (const file of files) {
        const { stdout } = await execFileAsync('python3', ['-m', 'warcio.cli', 'index', '--fields', 'warc-type,warc-target-uri,offset,length', file]);
        indexed.push(...stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, string>));
      }
      expect(indexed).toHaveLength(records.length);
      for (const type of ['warcinfo', 'response', 'request', 'revisit']) {
        expect(indexed.filter((entry) => entry['warc-type'] === type), type).toHaveLength(ofType(type).length);
      }
      // One gzip member per record: every record has its own offset.
      expect(new Set(indexed.map((entry) => `${entry['offset']}`)).size).toBeGreaterThan(files.length);
    });

    it('writes one response or revisit per archived fetch: responses for new content, revisits for 304s and identical refetches', () => {
      const firstCapture = new Map<string, FetchRow>();
      const expected = { response: 0, identical: 0, notModified: 0 };
      for (const row of fetches) {
        if (row.outcome === 'ok') {
          const seen = firstCapture.get(`${row.fingerprint}/${row.raw_hash}`);
          if (seen) expected.identical += 1;
          else {
            firstCapture.set(`${row.fingerprint}/${row.raw_hash}`, row);
            expected.response += 1;
          }
        } else if (row.outcome === 'not-modified') expected.notModified += 1;
        else if (row.status >= 300 && row.status < 400) expected.response += 1;
      }
      expect(expected.identical).toBeGreaterThan(0);
      expect(expected.notModified).toBe(pages(secondLog).filter((entry) => entry.status === 304).length);
      expect(ofType('response')).toHaveLength(expected.response);
      const revisits = ofType('revisit');
      expect(revisits.filter((record) => warcField(record, 'WARC-Profile') === IDENTICAL)).toHaveLength(expected.identical);
      expect(revisits.filter((record) => warcField(record, 'WARC-Profile') === NOT_MODIFIED)).toHaveLength(expected.notModified);
      // Every page request either crawl made is in the archive, once.
      const requestedUrls = [...pages(firstLog), ...pages(secondLog)].filter((entry) => entry.status >= 200 && entry.status < 400).map((entry) => `http://${entry.host}:${web.port}${entry.path}`).sort();
      const archived = [...ofType('response'), ...revisits].map((record) => warcField(record, 'WARC-Target-URI')!).sort();
      expect(archived).toEqual(requestedUrls);
    });

    it('pairs each with a request record stating the headers the server received', () => {
      const ids = byId();
      const requests = ofType('request');
      expect(requests).toHaveLength(ofType('response').length + ofType('revisit').length);
      const logs = [pages(firstLog), pages(secondLog)];
      const crawlOf = new Map(fetches.map((row) => [`${row.final_url} ${row.fetched_at.toISOString()}`, row.crawl_id]));
      for (const request of requests) {
        const concurrent = ids.get(warcField(request, 'WARC-Concurrent-To')!);
        expect(concurrent).toBeDefined();
        expect(['response', 'revisit']).toContain(warcField(concurrent!, 'WARC-Type'));
        expect(warcField(request, 'WARC-Target-URI')).toBe(warcField(concurrent!, 'WARC-Target-URI'));
        expect(warcField(request, 'WARC-Date')).toBe(warcField(concurrent!, 'WARC-Date'));
        const target = new URL(warcField(request, 'WARC-Target-URI')!);
        const { startLine, headers } = splitHttpBlock(request.block);
        expect(startLine).toBe(`GET ${target.pathname}${target.search} HTTP/1.1`);
        const header = (name: string) => headers.find(([field]) => field.toLowerCase() === name)?.[1];
        expect(header('host')).toBe(target.host);
        const crawlIndex = crawlOf.get(`${target.href} ${warcField(request, 'WARC-Date')}`) === 'warc-2' ? 1 : 0;
        const served = logs[crawlIndex]!.find((entry) => entry.host === target.hostname && entry.path === `${target.pathname}${target.search}`);
        expect(served, `${target.href} in crawl ${crawlIndex + 1}'s request log`).toBeDefined();
        expect(header('user-agent')).toBe(served!.userAgent);
        expect(header('accept-encoding')).toBe(served!.acceptEncoding);
        expect(header('if-none-match')).toBe(served!.ifNoneMatch);
        expect(header('if-modified-since')).toBe(served!.ifModifiedSince);
      }
    });

    it('stores the decoded body with a head that describes it, the payload digest being the fetch raw hash', () => {
      const hashByUrlAndDate = new Map(fetches.map((row) => [`${row.final_url} ${row.fetched_at.toISOString()}`, row.raw_hash]));
      for (const response of ofType('response')) {
        const { startLine, headers, payload } = splitHttpBlock(response.block);
        const header = (name: string) => headers.find(([field]) => field.toLowerCase() === name)?.[1];
        expect(header('content-encoding')).toBeUndefined();
        expect(header('transfer-encoding')).toBeUndefined();
        expect(header('content-length')).toBe(String(payload.length));
        if (startLine.startsWith('HTTP/1.1 200')) {
          const hash = hashByUrlAndDate.get(`${warcField(response, 'WARC-Target-URI')} ${warcField(response, 'WARC-Date')}`);
          expect(createHash('sha256').update(payload).digest('hex')).toBe(hash);
        }
      }
      const gzipped = ofType('response').filter((record) => warcField(record, 'WARC-Target-URI') === `http://${gzipPage.replace('{port}', String(web.port))}`);
      expect(gzipped.length).toBeGreaterThan(0);
      for (const record of gzipped) expect(splitHttpBlock(record.block).payload.toString('utf8')).toMatch(/^<!doctype html>/i);
    });

    it('refers each revisit to the response that holds its payload', () => {
      const ids = byId();
      for (const revisit of ofType('revisit')) {
        const original = ids.get(warcField(revisit, 'WARC-Refers-To')!);
        expect(original && warcField(original, 'WARC-Type')).toBe('response');
        expect(warcField(revisit, 'WARC-Refers-To-Target-URI')).toBe(warcField(original!, 'WARC-Target-URI'));
        expect(warcField(revisit, 'WARC-Refers-To-Date')).toBe(warcField(original!, 'WARC-Date'));
        expect(warcField(revisit, 'WARC-Target-URI')).toBe(warcField(original!, 'WARC-Target-URI'));
        expect(Date.parse(warcField(original!, 'WARC-Date')!)).toBeLessThan(Date.parse(warcField(revisit, 'WARC-Date')!));
        const { startLine, payload } = splitHttpBlock(revisit.block);
        expect(payload.length).toBe(0);
        if (warcField(revisit, 'WARC-Profile') === IDENTICAL) {
          expect(startLine).toMatch(/^HTTP\/1\.1 200 /);
          expect(warcField(revisit, 'WARC-Payload-Digest')).toBe(warcField(original!, 'WARC-Payload-Digest'));
        } else {
          expect(startLine).toBe('HTTP/1.1 304 Not Modified');
        }
      }
    });
  });

  it('exports one crawl to a named .warc file: 304s refer to the earlier crawl by URI and date only', async () => {
    const file = path.join(outDir, 'second.warc');
    await crawler('export', '--format', 'warc', '--crawl', 'warc-2', '--output', file);
    const records = readWarcRecords(await readFile(file));
    const check = await execFileAsync('python3', ['-m', 'warcio.cli', 'check', file]);
    expect(check.stdout).toBe('');
    expect(warcField(records[0]!, 'WARC-Filename')).toBe('second.warc');
    const second = fetches.filter((row) => row.crawl_id === 'warc-2');
    const revisits = records.filter((record) => warcField(record, 'WARC-Type') === 'revisit');
    // Within one crawl each URL was fetched once: nothing identical to refer to in scope.
    expect(revisits.filter((record) => warcField(record, 'WARC-Profile') === IDENTICAL)).toEqual([]);
    expect(revisits).toHaveLength(second.filter((row) => row.outcome === 'not-modified').length);
    const firstDates = new Map(fetches.filter((row) => row.crawl_id === 'warc-1').map((row) => [row.final_url, row.fetched_at.toISOString()]));
    for (const revisit of revisits) {
      expect(warcField(revisit, 'WARC-Refers-To')).toBeUndefined();
      expect(warcField(revisit, 'WARC-Refers-To-Date')).toBe(firstDates.get(warcField(revisit, 'WARC-Refers-To-Target-URI')!));
    }
    expect(records.filter((record) => warcField(record, 'WARC-Type') === 'response').length).toBe(second.filter((row) => row.outcome === 'ok' || (row.outcome !== 'not-modified' && row.status >= 300 && row.status < 400)).length);
  });

  describe('crawler bodies prune', () => {
    const referencedHashes = async () =>
      (await harness.pool.query<{ h: string }>(`SELECT DISTINCT encode(raw_hash, 'hex') AS h FROM fetches WHERE raw_hash IS NOT NULL`)).rows.map((row) => row.h);
    const objectKeys = async () => {
      const keys: string[] = [];
      for await (const key of harness.bodies.listKeys()) keys.push(key);
      return keys.sort();
    };
    /** A body as the fetch path stores it, with or without its row; no fetch points at it. */
    const storeOrphan = async (text: string, withRow: boolean) => {
      const body = Buffer.from(text);
      const sha256 = createHash('sha256').update(body).digest('hex');
      const gzipped = gzipSync(body);
      await harness.bodies.client.putObject(harness.bodies.bucket, bodyKeyFor(sha256), gzipped, gzipped.length);
      if (withRow) await recordBody(harness.pool, { sha256, objectKey: bodyKeyFor(sha256), bytes: body.length, storedBytes: gzipped.length });
      return sha256;
    };
    /** Bodies stored as the fetch path stores small ones (one pack for the lot), each with its row; no fetch points at them. */
    const storePacked = async (packer: BodyPacker, texts: string[]) => {
      const bodies = texts.map((text) => ({ text, sha256: createHash('sha256').update(text).digest('hex'), gzipped: gzipSync(Buffer.from(text)) }));
      const keys = await Promise.all(bodies.map(({ sha256, gzipped }) => packer.add(sha256, gzipped)));
      return Promise.all(
        bodies.map(async ({ text, sha256, gzipped }, i) => {
          await recordBody(harness.pool, { sha256, objectKey: keys[i]!.key, bytes: text.length, storedBytes: gzipped.length });
          return { sha256, key: keys[i]!.key };
        }),
      );
    };
    const bodyKeyOfRow = async (sha256: string) =>
      (await harness.pool.query<{ object_key: string }>('SELECT object_key FROM bodies WHERE sha256 = $1', [Buffer.from(sha256, 'hex')])).rows[0]!.object_key;
    const hasRow = async (sha256: string) => (await harness.pool.query('SELECT 1 FROM bodies WHERE sha256 = $1', [Buffer.from(sha256, 'hex')])).rowCount === 1;

    it('--dry-run reports the orphans and deletes nothing; --older-than spares younger ones; a real run deletes only them', async () => {
      const referenced = await referencedHashes();
      expect(referenced.length).toBeGreaterThan(0);
      const orphanWithRow = await storeOrphan('orphan body with a row', true);
      const orphanObject = await storeOrphan('orphan object without a row', false);
      // Packs: one whose only body nothing references, one whose other body a fetch does.
      const packer = new BodyPacker(harness.bodies, (sha256s) => storedBodyKeys(harness.pool, sha256s));
      const packOrphan = await storePacked(packer, ['packed orphan alone']);
      const [packedOrphanBeside, packedKept] = await storePacked(packer, ['packed orphan beside a kept body', 'packed body a fetch keeps']);
      const [fetch] = fetches.filter((row) => row.outcome === 'ok');
      await harness.pool.query(
        `INSERT INTO fetches (fingerprint, generation, crawl_id, url, final_url, fetched_at, status, outcome, raw_hash, body_key, bytes)
         VALUES (decode($1, 'hex'), 998, 'warc-2', $2, $2, now(), 200, 'ok', decode($3, 'hex'), $4, 1)`,
        [fetch!.fingerprint, fetch!.final_url, packedKept!.sha256, packedKept!.key],
      );
      const before = await objectKeys();
      expect(before).toContain(bodyKeyFor(orphanWithRow));
      expect(before).toContain(packKeyOf(packOrphan[0]!.key));

      const dry = JSON.parse((await crawler('bodies', 'prune', '--dry-run', '--grace-minutes', '0', '--json')).stdout) as { deleted: { rows: number; objects: number; packs: number } };
      // The same figures a real run reports below, the pack a real run frees once its rows are gone included.
      expect(dry.deleted).toMatchObject({ rows: 3, objects: 3, packs: 1 });
      expect(await objectKeys()).toEqual(before);
      expect(await hasRow(orphanWithRow)).toBe(true);

      const older = JSON.parse((await crawler('bodies', 'prune', '--older-than', '1', '--grace-minutes', '0', '--json')).stdout) as { deleted: { rows: number; objects: number } };
      expect(older.deleted).toMatchObject({ rows: 0, objects: 0 });
      expect(await objectKeys()).toEqual(before);

      const real = await crawler('bodies', 'prune', '--grace-minutes', '0');
      expect(real.stdout).toMatch(/deleted 3 object\(s\) \(1 of them packs\) and 3 row\(s\)/);
      const after = await objectKeys();
      const gone = [bodyKeyFor(orphanWithRow), bodyKeyFor(orphanObject), packKeyOf(packOrphan[0]!.key)];
      expect(after).toEqual(before.filter((key) => !gone.includes(key)));
      for (const sha256 of [orphanWithRow, packOrphan[0]!.sha256, packedOrphanBeside!.sha256]) expect(await hasRow(sha256)).toBe(false);
      // The pack one of whose bodies a fetch points at stays whole, and that body readable.
      expect(await hasRow(packedKept!.sha256)).toBe(true);
      expect((await harness.bodies.getBody(packedKept!.key)).toString()).toBe('packed body a fetch keeps');
      for (const hash of referenced) {
        const key = await bodyKeyOfRow(hash);
        expect(after).toContain(packKeyOf(key) ?? key);
      }
      await harness.pool.query(`DELETE FROM fetches WHERE generation = 998`);
      // Every stored fetch still exports with its body.
      const { stderr } = await crawler('export', '--format', 'warc', '--output', path.join(outDir, 'after-prune'));
      expect(stderr).toMatch(/0 with a missing body/);
    });

    it('keeps a pack whose body a fetch points at while the prune waits for the pack', async () => {
      const packer = new BodyPacker(harness.bodies, (sha256s) => storedBodyKeys(harness.pool, sha256s));
      // A pack nothing points into: the prune's scan finds it a candidate.
      const [packed] = await storePacked(packer, ['a packed body a fetch is about to reference again']);
      await harness.pool.query('DELETE FROM bodies WHERE sha256 = $1', [Buffer.from(packed!.sha256, 'hex')]);
      const pack = packKeyOf(packed!.key)!;
      const [fetch] = fetches.filter((row) => row.outcome === 'ok');
      const checker = await harness.pool.connect();
      try {
        // A fetch that found the body stored records it again: its transaction takes the body's
        // retention lock and its pack's, shared, so the prune waits for it at the pack.
        await checker.query('BEGIN');
        await recordBody(checker, { sha256: packed!.sha256, objectKey: packed!.key, bytes: 1, storedBytes: 1 });
        const pruning = pruneBodies({ pool: harness.pool, bodies: harness.bodies, now: Date.now }, { graceMs: 0 });
        await until(async () => (await harness.pool.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`)).rowCount! > 0);
        // Its fetch record points into the pack: the prune's batch query did not see it.
        await checker.query(
          `INSERT INTO fetches (fingerprint, generation, crawl_id, url, final_url, fetched_at, status, outcome, raw_hash, body_key, bytes)
           VALUES (decode($1, 'hex'), 997, 'warc-2', $2, $2, now(), 200, 'ok', decode($3, 'hex'), $4, 1)`,
          [fetch!.fingerprint, fetch!.final_url, packed!.sha256, packed!.key],
        );
        await checker.query('COMMIT');
        const summary = await pruning;
        expect(summary.kept.referenced).toBeGreaterThanOrEqual(1);
      } finally {
        checker.release();
      }
      expect(await objectKeys()).toContain(pack);
      expect((await harness.bodies.getBody(packed!.key)).toString()).toBe('a packed body a fetch is about to reference again');
      await harness.pool.query(`DELETE FROM fetches WHERE generation = 997`);
    });

    it('keeps a body whose fetch commits while the prune waits for it', async () => {
      const sha256 = await storeOrphan('a body a fetch is about to reference', true);
      const [fetch] = fetches.filter((row) => row.outcome === 'ok');
      const writer = await harness.pool.connect();
      try {
        // The fetch path's transaction: the body's shared lock, then the fetch pointing at it.
        await writer.query('BEGIN');
        await recordBody(writer, { sha256, objectKey: bodyKeyFor(sha256), bytes: 1, storedBytes: 1 });
        await writer.query(
          `INSERT INTO fetches (fingerprint, generation, crawl_id, url, final_url, fetched_at, status, outcome, raw_hash, body_key, bytes)
           VALUES (decode($1, 'hex'), 999, 'warc-2', $2, $2, now(), 200, 'ok', decode($3, 'hex'), $4, 1)`,
          [fetch!.fingerprint, fetch!.final_url, sha256, bodyKeyFor(sha256)],
        );
        // The scan cannot see the uncommitted fetch, so the body is a candidate; the prune must wait.
        const pruning = pruneBodies({ pool: harness.pool, bodies: harness.bodies, now: Date.now }, { graceMs: 0 });
        await until(async () => (await harness.pool.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`)).rowCount! > 0);
        await writer.query('COMMIT');
        const summary = await pruning;
        expect(summary.kept.referenced).toBe(1);
      } finally {
        writer.release();
      }
      expect(await objectKeys()).toContain(bodyKeyFor(sha256));
      expect(await hasRow(sha256)).toBe(true);
      await harness.pool.query(`DELETE FROM fetches WHERE generation = 999`);
    });
  });
});

/** Polls until `condition` holds; the bound only keeps a broken test from hanging. */
async function until(condition: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
