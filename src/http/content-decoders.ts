import { Transform, type TransformCallback } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import { HttpFetchError } from './errors.js';
import { neutralizeText } from '../domain/text/index.js';

/** The codings we ask for in Accept-Encoding, and therefore the only ones we decode. */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

/** More stacked codings than this is no real server: refuse instead of chaining decoders. */
const MAX_STACKED_CODINGS = 3;

/** Content-Encoding as a list of codings in the order they were applied, without 'identity'. */
export function contentCodingsOf(contentEncoding: string | undefined): string[] {
  if (contentEncoding === undefined) return [];
  return contentEncoding
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
}

/**
 * Transforms that undo `codings` (last applied, first undone). Corrupt or truncated data fails
 * with zlib's or brotli's own error, which transportErrorCodeOf names 'HTTP_BAD_CONTENT_ENCODING'; an
 * unknown coding fails with that HttpFetchError on its first body byte, so an empty body (a 304)
 * with an odd header still succeeds.
 */
export function createContentDecoders(codings: readonly string[], url: string): Transform[] {
  if (codings.length > MAX_STACKED_CODINGS) {
    return [failingOnFirstByte(url, `${codings.length} stacked content codings (${codings.join(', ')})`)];
  }
  return [...codings].reverse().map((coding) => decoderFor(coding, url));
}

function decoderFor(coding: string, url: string): Transform {
  // zlib and brotli errors keep their own codes (Z_*, ERR__ERROR_FORMAT_*), which
  // transportErrorCodeOf names 'HTTP_BAD_CONTENT_ENCODING'; a truncated stream is one of them.
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'br':
      return createBrotliDecompress();
    case 'deflate':
      return new DeflateDecoder();
    default:
      return failingOnFirstByte(url, `unsupported content coding "${neutralizeText(coding)}" (we only accept ${ACCEPT_ENCODING})`);
  }
}

function failingOnFirstByte(url: string, detail: string): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      if (chunk.length === 0) callback();
      else callback(new HttpFetchError('HTTP_BAD_CONTENT_ENCODING', url, { detail }));
    },
  });
}

/**
 * HTTP "deflate" is meant to be zlib-wrapped (RFC 9110), but some servers send raw deflate. The
 * first two bytes decide: a valid zlib header picks inflate, anything else inflate-raw, as
 * browsers do. Output honours backpressure, so a deflate bomb stays bounded like gzip.
 */
class DeflateDecoder extends Transform {
  private inner: Transform | undefined;
  private pending: Buffer = Buffer.alloc(0);

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.inner !== undefined) {
      this.writeInner(this.inner, chunk, callback);
      return;
    }
    this.pending = Buffer.concat([this.pending, chunk]);
    if (this.pending.length < 2) {
      callback();
      return;
    }
    const first = this.pending;
    this.pending = Buffer.alloc(0);
    this.writeInner(this.start(first), first, callback);
  }

  override _flush(callback: TransformCallback): void {
    let inner = this.inner;
    if (inner === undefined) {
      if (this.pending.length === 0) {
        callback();
        return;
      }
      inner = this.start(this.pending);
      inner.write(this.pending);
    }
    inner.once('end', () => callback());
    inner.end();
  }

  override _read(size: number): void {
    this.inner?.resume();
    super._read(size);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.inner?.destroy();
    callback(error);
  }

  private start(firstBytes: Buffer): Transform {
    const inner = isZlibHeader(firstBytes) ? createInflate() : createInflateRaw();
    this.inner = inner;
    inner.on('data', (decoded: Buffer) => {
      if (!this.push(decoded)) inner.pause();
    });
    inner.on('error', (error) => this.destroy(error));
    return inner;
  }

  private writeInner(inner: Transform, chunk: Buffer, callback: TransformCallback): void {
    if (inner.write(chunk)) callback();
    else inner.once('drain', () => callback());
  }
}

function isZlibHeader(bytes: Buffer): boolean {
  const cmf = bytes[0];
  const flg = bytes[1];
  if (cmf === undefined || flg === undefined) return false;
  return (cmf & 0x0f) === 8 && (cmf >> 4) <= 7 && ((cmf << 8) | flg) % 31 === 0;
}
