import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { BodySpool } from '../../../src/services/fetching/body-spool.js';

const root = mkdtempSync(join(tmpdir(), 'body-spool-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Writes `body` through a fresh spool's sink in chunks, as the HTTP layer does. */
async function spoolOf(body: Buffer, options: { dir: string; memoryLimitBytes?: number; keepDecodedUpToBytes?: number; gzipInOneCallUpToBytes?: number }, chunkBytes = 4096): Promise<BodySpool> {
  const spool = new BodySpool(options);
  const sink = spool.sink();
  for (let at = 0; at < body.length; at += chunkBytes) await sink.write(body.subarray(at, at + chunkBytes));
  await sink.end();
  return spool;
}

function gunzipped(spool: BodySpool): Buffer {
  const contents = spool.contents();
  return gunzipSync('bytes' in contents ? contents.bytes : readFileSync(contents.filePath));
}

describe('BodySpool', () => {
  it('keeps a body under the limit in memory, gzipped, and makes no file', async () => {
    const dir = join(root, 'small');
    const body = Buffer.from('<html><body>small page</body></html>'.repeat(50));
    const spool = await spoolOf(body, { dir, memoryLimitBytes: 64 * 1024 });
    const contents = spool.contents();
    expect('bytes' in contents).toBe(true);
    expect(spool.size).toBe('bytes' in contents ? contents.bytes.length : -1);
    expect(spool.size).toBeLessThan(body.length);
    expect(gunzipped(spool).equals(body)).toBe(true);
    expect(existsSync(dir)).toBe(false);
  });

  it('moves a body past the limit to a file, in order, and discard removes it', async () => {
    const dir = join(root, 'large');
    // Incompressible, so the gzipped output passes the 8 KiB limit early and keeps coming after the move.
    const body = randomBytes(200 * 1024);
    const spool = await spoolOf(body, { dir, memoryLimitBytes: 8 * 1024 });
    const contents = spool.contents();
    expect('filePath' in contents).toBe(true);
    if (!('filePath' in contents)) return;
    expect(contents.storedBytes).toBe(statSync(contents.filePath).size);
    // A fetched body is the crawl's: its user's alone, whatever the umask.
    expect(statSync(contents.filePath).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(spool.size).toBe(contents.storedBytes);
    expect(gunzipped(spool).equals(body)).toBe(true);
    await spool.discard();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a body past the one-call limit goes through a stream, the chunks held before it first and in order', async () => {
    const body = randomBytes(50 * 1024);
    for (const limit of [0, 3000, 10_000, 50 * 1024 - 1, 50 * 1024]) {
      const spool = await spoolOf(body, { dir: join(root, `one-call-${limit}`), gzipInOneCallUpToBytes: limit }, 3000);
      expect(gunzipped(spool).equals(body), `limit ${limit}`).toBe(true);
    }
  });

  it('a body past the one-call limit that outgrows memory still reaches its file whole', async () => {
    const dir = join(root, 'one-call-then-file');
    const body = randomBytes(120 * 1024);
    const spool = await spoolOf(body, { dir, memoryLimitBytes: 8 * 1024, gzipInOneCallUpToBytes: 20 * 1024 });
    expect('filePath' in spool.contents()).toBe(true);
    expect(gunzipped(spool).equals(body)).toBe(true);
    await spool.discard();
  });

  it('an empty body is an empty gzip member, in memory', async () => {
    const spool = await spoolOf(Buffer.alloc(0), { dir: join(root, 'empty') });
    expect(gunzipped(spool).length).toBe(0);
  });

  it('an aborted body leaves nothing behind', async () => {
    const dir = join(root, 'aborted');
    const spool = new BodySpool({ dir, memoryLimitBytes: 1024 });
    const sink = spool.sink();
    await sink.write(randomBytes(64 * 1024));
    await sink.abort(new Error('cut off'));
    await spool.discard();
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
  });

  it('tells each chunk written, for the fetch to heartbeat', async () => {
    let chunks = 0;
    const spool = new BodySpool({ dir: join(root, 'beats'), onChunk: () => (chunks += 1) });
    const sink = spool.sink();
    for (let i = 0; i < 3; i++) await sink.write(Buffer.from(`chunk ${i}`));
    await sink.end();
    expect(chunks).toBe(3);
  });

  it('keeps the decoded body beside the gzipped one only when asked and only while it fits', async () => {
    const body = Buffer.from('<html><body>kept for the parse</body></html>'.repeat(200));
    expect((await spoolOf(body, { dir: join(root, 'not-asked') })).decoded()).toBeUndefined();
    const kept = await spoolOf(body, { dir: join(root, 'kept'), keepDecodedUpToBytes: body.length });
    expect(kept.decoded()?.equals(body)).toBe(true);
    expect(gunzipped(kept).equals(body)).toBe(true);
    const tooLong = await spoolOf(body, { dir: join(root, 'too-long'), keepDecodedUpToBytes: body.length - 1 });
    expect(tooLong.decoded()).toBeUndefined();
    expect(gunzipped(tooLong).equals(body)).toBe(true);
    await tooLong.discard();
    await kept.discard();
    expect(kept.decoded()).toBeUndefined();
  });
});
