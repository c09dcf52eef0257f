import { createHash } from 'node:crypto';
import { Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ByteLimit } from './byte-limit.js';
import { createContentDecoders } from './content-decoders.js';
import { HttpFetchError } from './errors.js';
import { transportErrorCodeOf } from './transport-error-code-of.js';

/** Where the decoded body goes. Chunks arrive in order; a returned promise is awaited (backpressure). */
export interface BodySink {
  write(chunk: Uint8Array): Promise<void> | void;
  end(): Promise<void> | void;
  /** Called once when the body cannot be completed; the sink should discard what it has. */
  abort(reason: unknown): Promise<void> | void;
}

export interface BodyReadOptions {
  url: string;
  /** Content codings as applied by the server (from contentCodingsOf). */
  codings: readonly string[];
  /** Wire (still encoded) bytes allowed. */
  maxBodyBytes: number;
  /** Decoded bytes allowed when the body has a content coding. */
  maxDecompressedBytes: number;
  /** Receives the decoded bytes; undefined drains and counts them only. */
  sink: BodySink | undefined;
}

export interface BodyReadResult {
  /** Decoded bytes. */
  bytes: number;
  wireBytes: number;
  /** SHA-256 of the decoded bytes, hex. */
  sha256: string;
}

/** Wraps an error thrown by the caller's sink so it is rethrown as is, never as a transport error. */
export class SinkFailure extends Error {
  override readonly name = 'SinkFailure';
  constructor(readonly error: unknown) {
    super('the body sink failed', { cause: error });
  }
}

/**
 * Streams `source` through the wire limit, the content decoders and the decoded limit into the
 * sink, hashing as it goes. Memory stays at a few stream buffers whatever the body size; on any
 * failure the source is destroyed (which aborts the request and its socket). Rejects with an
 * HttpFetchError, a SinkFailure, or whatever destroyed `source` (the caller names that).
 */
export async function readBody(source: Readable, options: BodyReadOptions): Promise<BodyReadResult> {
  const { url, codings, maxBodyBytes, maxDecompressedBytes, sink } = options;
  const wire = new ByteLimit({ maxBytes: maxBodyBytes, code: 'HTTP_BODY_TOO_LARGE', url });
  const hash = createHash('sha256');
  // Without a content coding the decoded bytes are the wire bytes, already limited by maxBodyBytes.
  const decodedLimit = codings.length > 0 ? maxDecompressedBytes : Number.POSITIVE_INFINITY;
  let bytes = 0;

  const consume = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (bytes + chunk.length > decodedLimit) {
        callback(new HttpFetchError('HTTP_DECOMPRESSED_TOO_LARGE', url, { detail: `more than ${maxDecompressedBytes} decoded bytes` }));
        return;
      }
      bytes += chunk.length;
      hash.update(chunk);
      // Not calling back until the sink is done is what carries its backpressure upstream.
      if (sink === undefined) callback();
      else callSink(() => sink.write(chunk)).then(() => callback(), callback);
    },
  });

  try {
    await pipeline([source, wire, ...createContentDecoders(codings, url), consume]);
  } catch (error) {
    // zlib and brotli refuse an empty stream, but an empty body is empty whatever its coding says.
    const emptyAndEncoded = wire.bytes === 0 && codings.length > 0 && transportErrorCodeOf(error) === 'HTTP_BAD_CONTENT_ENCODING';
    if (!emptyAndEncoded || !source.readableEnded) throw error;
  }
  return { bytes, wireBytes: wire.bytes, sha256: hash.digest('hex') };
}

/** Runs a sink call, marking anything it throws as the sink's own failure. */
export async function callSink(call: () => Promise<void> | void): Promise<void> {
  try {
    await call();
  } catch (error) {
    throw new SinkFailure(error);
  }
}
