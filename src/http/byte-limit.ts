import { Transform, type TransformCallback } from 'node:stream';
import { HttpFetchError } from './errors.js';

export interface ByteLimitOptions {
  /** Bytes allowed through; the chunk that would cross it fails the stream instead. */
  maxBytes: number;
  /** Code of the HttpFetchError raised when `maxBytes` is crossed. */
  code: 'HTTP_BODY_TOO_LARGE' | 'HTTP_DECOMPRESSED_TOO_LARGE';
  /** URL named in the error. */
  url: string;
}

/**
 * Counts bytes as they flow and fails the moment the limit is crossed, so a stream is cut off
 * after at most one chunk over the limit has been read and none of it is passed on.
 */
export class ByteLimit extends Transform {
  private count = 0;

  constructor(private readonly options: ByteLimitOptions) {
    super();
  }

  /** Bytes passed through so far. */
  get bytes(): number {
    return this.count;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const { maxBytes, code, url } = this.options;
    if (this.count + chunk.length > maxBytes) {
      callback(new HttpFetchError(code, url, { detail: `more than ${maxBytes} bytes` }));
      return;
    }
    this.count += chunk.length;
    callback(null, chunk);
  }
}
