import { createReadStream } from 'node:fs';
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import * as Minio from 'minio';
import { bodyKeyFor, bodyLocationOf } from './body-key.js';

const gunzipAsync = promisify(gunzip);

export interface BodyStoreOptions {
  endPoint: string;
  port: number;
  useSSL: boolean;
  accessKey: string;
  secretKey: string;
  bucket: string;
  region?: string;
}

/** A gzipped body to store: in memory, or in a file of `storedBytes` bytes. */
export type GzippedBody = { bytes: Buffer } | { filePath: string; storedBytes: number };

/**
 * Raw bodies in MinIO, gzip-compressed at rest (body-key.ts says where): small ones in packs of
 * many (body-packer.ts), large ones as objects of their own addressed by the SHA-256 of the
 * decoded bytes. Writes of those are idempotent: storing a body that exists is a no-op, so
 * retried and redelivered fetches never duplicate an object.
 */
export class BodyStore {
  readonly client: Minio.Client;
  readonly bucket: string;

  constructor(private readonly options: BodyStoreOptions) {
    this.client = new Minio.Client({
      endPoint: options.endPoint,
      port: options.port,
      useSSL: options.useSSL,
      accessKey: options.accessKey,
      secretKey: options.secretKey,
      region: options.region ?? 'us-east-1',
    });
    this.bucket = options.bucket;
  }

  async ensureBucket(): Promise<void> {
    if (!(await this.client.bucketExists(this.bucket))) {
      await this.client.makeBucket(this.bucket, this.options.region ?? 'us-east-1').catch(async (error: unknown) => {
        // Another worker may have created it between our check and our call.
        if (!(await this.client.bucketExists(this.bucket))) throw error;
      });
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.statObject(this.bucket, key);
      return true;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'NotFound' || code === 'NoSuchKey') return false;
      throw error;
    }
  }

  /**
   * Uploads an already-gzipped body under its key unless that object exists. A body in memory
   * goes as one conditional PUT (If-None-Match: *; the store answers 412 when the object is there),
   * one request where a stat and a PUT were two; a body in a file is large, so it is sent only
   * after a stat finds no object.
   */
  async putGzipIfAbsent(sha256Hex: string, body: GzippedBody): Promise<{ key: string; created: boolean }> {
    const key = bodyKeyFor(sha256Hex);
    const metadata = { 'Content-Type': 'application/octet-stream', 'Content-Encoding': 'gzip' };
    if ('bytes' in body) {
      try {
        await this.client.putObject(this.bucket, key, body.bytes, body.bytes.length, { ...metadata, 'If-None-Match': '*' });
        return { key, created: true };
      } catch (error) {
        if (isPreconditionFailed(error)) return { key, created: false };
        throw error;
      }
    }
    if (await this.exists(key)) return { key, created: false };
    await this.client.putObject(this.bucket, key, createReadStream(body.filePath), body.storedBytes, metadata);
    return { key, created: true };
  }

  /**
   * Uploads a gzipped object that is not a fetched body (a rendered DOM, a render's cached
   * subresource) under `<prefix>/sha256/ab/<hash>.gz` unless it exists. Outside the body prefixes,
   * so the body prune (body-retention.ts) never takes it for an orphan.
   */
  async putRenderObjectIfAbsent(prefix: 'renders' | 'subresources', sha256Hex: string, gzipped: Buffer): Promise<string> {
    if (!/^[0-9a-f]{64}$/.test(sha256Hex)) throw new Error(`not a SHA-256 hex digest: ${sha256Hex}`);
    const key = `${prefix}/sha256/${sha256Hex.slice(0, 2)}/${sha256Hex}.gz`;
    try {
      await this.client.putObject(this.bucket, key, gzipped, gzipped.length, { 'Content-Type': 'application/octet-stream', 'Content-Encoding': 'gzip', 'If-None-Match': '*' });
    } catch (error) {
      if (!isPreconditionFailed(error)) throw error;
    }
    return key;
  }

  /**
   * Writes a pack (body-packer.ts): consecutive gzip members, each a whole body. Not marked
   * Content-Encoding gzip: a reader takes one member by its byte range, never the whole as one stream.
   */
  async putPack(key: string, bytes: Buffer): Promise<void> {
    await this.client.putObject(this.bucket, key, bytes, bytes.length, { 'Content-Type': 'application/gzip' });
  }

  /** The gzipped bytes of the body under `key`: a whole object, or a packed body's byte range. */
  async getGzipped(key: string): Promise<Buffer> {
    const { objectKey, range } = bodyLocationOf(key);
    const stream = range ? await this.client.getPartialObject(this.bucket, objectKey, range.offset, range.length) : await this.client.getObject(this.bucket, objectKey);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  /** The decoded body bytes. */
  async getBody(key: string): Promise<Buffer> {
    return gunzipAsync(await this.getGzipped(key));
  }

  async remove(key: string): Promise<void> {
    await this.client.removeObject(this.bucket, key);
  }

  async *listKeys(prefix = ''): AsyncGenerator<string> {
    const stream = this.client.listObjectsV2(this.bucket, prefix, true);
    for await (const item of stream as AsyncIterable<{ name?: string }>) {
      if (item.name) yield item.name;
    }
  }
}

/** The store's answer to a conditional write whose condition failed (the object exists). */
function isPreconditionFailed(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === 'PreconditionFailed';
}
