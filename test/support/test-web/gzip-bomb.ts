import { createGzip } from 'node:zlib';

const CHUNK_BYTES = 1 << 20;

/**
 * A single-member gzip stream that inflates to `decompressedBytes` spaces. Built by streaming
 * through zlib, so the decompressed size is never held in memory; the result is about 1/1000 of it.
 */
export async function buildGzipBomb(decompressedBytes: number): Promise<Buffer> {
  if (!Number.isSafeInteger(decompressedBytes) || decompressedBytes < 0) {
    throw new RangeError(`buildGzipBomb: decompressedBytes must be a non-negative integer, got ${decompressedBytes}`);
  }
  const gzip = createGzip({ level: 9 });
  const parts: Buffer[] = [];
  gzip.on('data', (part: Buffer) => parts.push(part));
  const done = new Promise<void>((resolve, reject) => {
    gzip.once('end', resolve);
    gzip.once('error', reject);
  });
  const chunk = Buffer.alloc(CHUNK_BYTES, 0x20);
  for (let left = decompressedBytes; left > 0; left -= CHUNK_BYTES) {
    const piece = left >= CHUNK_BYTES ? chunk : chunk.subarray(0, left);
    if (!gzip.write(piece)) await new Promise((resolve) => gzip.once('drain', resolve));
  }
  gzip.end();
  await done;
  return Buffer.concat(parts);
}
