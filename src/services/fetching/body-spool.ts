/**
 * Where a fetched body waits, gzipped, between the response and the object store: in memory up
 * to a limit, then in a file. Most pages are small, and a file per page cost a dozen file-system
 * calls (each a thread-pool round trip) for bytes that fit in a few kilobytes. For the same reason
 * a small body is gzipped in one call when it ends, not through a stream.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createGzip, gzipSync, type Gzip } from 'node:zlib';
import { once } from 'node:events';
import type { BodySink } from '../../http/index.js';
import type { GzippedBody } from '../../storage/object-store/body-store.js';

export interface BodySpoolOptions {
  /** Folder for bodies that outgrow memory (created when first needed). */
  dir: string;
  /** Gzipped bytes kept in memory before the body moves to a file. Default 256 KiB. */
  memoryLimitBytes?: number;
  /** Called after each chunk written (the fetch heartbeats from it). */
  onChunk?: () => void;
  /**
   * Also keep the decoded body in memory while it is at most this many bytes (for a parse in the
   * same process); a longer body keeps none. Default 0: keep none.
   */
  keepDecodedUpToBytes?: number;
  /**
   * A body of at most this many bytes is gzipped in one synchronous call when it ends; a longer
   * one through a gzip stream from the chunk that passes it. Default 64 KiB. A 12 KiB page took
   * 200 µs of CPU in one call against 440-550 µs through a stream (the thread pool's hand-offs,
   * the stream's buffers), and about the same time on the event loop either way; a call blocks
   * the loop for its whole length, hence the limit.
   */
  gzipInOneCallUpToBytes?: number;
}

export const DEFAULT_SPOOL_MEMORY_LIMIT_BYTES = 256 * 1024;
export const DEFAULT_GZIP_IN_ONE_CALL_UP_TO_BYTES = 64 * 1024;

export class BodySpool {
  /** True once the HTTP layer asked for a sink (the response is one we keep). */
  used = false;
  private gzip?: Gzip;
  /** The body so far while it is short enough to gzip in one call; undefined once a stream took over. */
  private pending: Uint8Array[] | undefined = [];
  private pendingBytes = 0;
  private readonly chunks: Buffer[] = [];
  private bufferedBytes = 0;
  private file?: { path: string; stream: WriteStream; closed: Promise<void> };
  private spilling?: Promise<void>;
  private ended?: Promise<void>;
  private storedBytes = 0;
  private decodedChunks: Uint8Array[] | undefined;
  private decodedBytes = 0;

  constructor(private readonly options: BodySpoolOptions) {
    if ((options.keepDecodedUpToBytes ?? 0) > 0) this.decodedChunks = [];
  }

  sink(): BodySink {
    this.used = true;
    return {
      write: async (chunk) => {
        this.keepDecoded(chunk);
        if (this.pending !== undefined && this.pendingBytes + chunk.length <= (this.options.gzipInOneCallUpToBytes ?? DEFAULT_GZIP_IN_ONE_CALL_UP_TO_BYTES)) {
          this.pending.push(chunk);
          this.pendingBytes += chunk.length;
        } else {
          const gzip = this.gzip ?? this.startGzipStream();
          if (!gzip.write(chunk)) await once(gzip, 'drain');
          if (this.spilling) await this.spilling;
        }
        this.options.onChunk?.();
      },
      end: async () => {
        if (this.pending !== undefined) {
          this.take(gzipSync(this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes)));
          this.pending = undefined;
        } else {
          this.gzip?.end();
          await this.ended;
        }
        if (this.spilling) await this.spilling;
        if (this.file) {
          this.file.stream.end();
          await this.file.closed;
        }
      },
      abort: async () => {
        this.pending = undefined;
        this.gzip?.destroy();
      },
    };
  }

  /** From the chunk that makes the body too long for one call: what was held goes in first, in order. */
  private startGzipStream(): Gzip {
    const gzip = (this.gzip = createGzip());
    gzip.on('data', (data: Buffer) => this.take(data));
    this.ended = once(gzip, 'end').then(() => undefined);
    // Awaited by end(); a body aborted before it must not leave an unhandled rejection behind.
    this.ended.catch(() => undefined);
    for (const held of this.pending ?? []) gzip.write(held);
    this.pending = undefined;
    return gzip;
  }

  /** The gzipped body, once the sink has ended. */
  contents(): GzippedBody {
    return this.file ? { filePath: this.file.path, storedBytes: this.storedBytes } : { bytes: Buffer.concat(this.chunks, this.bufferedBytes) };
  }

  /** The decoded body, once the sink has ended, if it was short enough to keep (keepDecodedUpToBytes). */
  decoded(): Buffer | undefined {
    return this.decodedChunks && Buffer.concat(this.decodedChunks, this.decodedBytes);
  }

  /** Gzipped bytes of the body, once the sink has ended. */
  get size(): number {
    return this.storedBytes;
  }

  async discard(): Promise<void> {
    this.pending = undefined;
    this.gzip?.destroy();
    this.chunks.length = 0;
    this.decodedChunks = undefined;
    if (this.spilling) await this.spilling.catch(() => undefined);
    if (this.file) {
      this.file.stream.destroy();
      await rm(this.file.path, { force: true });
    }
  }

  private keepDecoded(chunk: Uint8Array): void {
    if (this.decodedChunks === undefined) return;
    this.decodedBytes += chunk.length;
    if (this.decodedBytes > (this.options.keepDecodedUpToBytes ?? 0)) this.decodedChunks = undefined;
    else this.decodedChunks.push(chunk);
  }

  private take(data: Buffer): void {
    this.storedBytes += data.length;
    if (this.file) {
      this.writeToFile(data);
      return;
    }
    this.chunks.push(data);
    this.bufferedBytes += data.length;
    if (this.bufferedBytes > (this.options.memoryLimitBytes ?? DEFAULT_SPOOL_MEMORY_LIMIT_BYTES) && !this.spilling) this.spilling = this.spill();
  }

  /** Moves what memory holds to a file; later output goes straight there. */
  private async spill(): Promise<void> {
    // Fetched bodies are the crawl's: readable by this user alone.
    await mkdir(this.options.dir, { recursive: true, mode: 0o700 });
    const filePath = path.join(this.options.dir, `${randomUUID()}.gz`);
    const stream = createWriteStream(filePath, { mode: 0o600 });
    const closed = once(stream, 'close').then(() => undefined);
    closed.catch(() => undefined);
    this.file = { path: filePath, stream, closed };
    // Output that arrived while the folder was made is still in memory, in order: it goes first.
    const held = this.chunks.splice(0);
    this.bufferedBytes = 0;
    for (const chunk of held) this.writeToFile(chunk);
  }

  private writeToFile(data: Buffer): void {
    const { stream } = this.file!;
    // Backpressure: the gzip stream stops producing until the file takes what it has.
    if (!stream.write(data)) {
      this.gzip?.pause();
      stream.once('drain', () => this.gzip?.resume());
    }
  }
}
