/**
 * WARC files on disk: each opens with its own warcinfo record, records are optionally gzipped one
 * member each (the .warc.gz convention that lets a reader seek to any record's offset), and a new
 * file starts before a group of records would take the current one past the size limit. A file
 * is written as NAME.open and renamed when complete, so a crash never leaves a WARC that looks
 * whole.
 */
import { access, mkdir, open, rename, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import { WarcExportError } from './errors.js';
import { CONTENT_TYPE, serializeWarcRecord, warcRecordId, type WarcRecordInput } from './warc-record.js';

const gzip = promisify(gzipCallback);

export interface WarcFileNaming {
  /** Folder the files go to; created when missing. */
  directory: string;
  /** Name without extension or serial, e.g. `crawl-c1-20250101120000`. */
  stem: string;
  /** True: every file carries a serial (`stem-00000.warc`). False: the first is `stem.warc`, later ones `stem-00001.warc`. */
  serialOnFirst: boolean;
  gzip: boolean;
}

/** File number `serial` (0-based) of a naming. */
export function warcFileName(naming: WarcFileNaming, serial: number): string {
  const extension = naming.gzip ? '.warc.gz' : '.warc';
  const suffix = serial === 0 && !naming.serialOnFirst ? '' : `-${String(serial).padStart(5, '0')}`;
  return `${naming.stem}${suffix}${extension}`;
}

export interface WarcFileWriterOptions {
  naming: WarcFileNaming;
  /** A new file starts before a group would take the current one past this many bytes (as written, compressed or not). A group larger than this gets a file of its own. */
  maxFileBytes: number;
  /** Fields of each file's warcinfo record (`software`, `format`, `isPartOf`, ...), in order. */
  warcinfoFields: ReadonlyArray<readonly [string, string]>;
  /** WARC-Date of the warcinfo records: when the export ran. */
  date: Date;
}

export class WarcFileWriter {
  /** Paths of the completed files, in order. */
  readonly files: string[] = [];
  private handle?: FileHandle;
  private openPath = '';
  private finalPath = '';
  private serial = -1;
  private fileBytes = 0;
  private fileRecords = 0;
  private warcinfoId = '';
  private totalBytes = 0;

  constructor(private readonly options: WarcFileWriterOptions) {
    if (!Number.isSafeInteger(options.maxFileBytes) || options.maxFileBytes < 1) {
      throw new WarcExportError('WARC_INVALID_OPTION', `maxFileBytes must be an integer >= 1, got ${String(options.maxFileBytes)}`);
    }
  }

  /** Bytes written to every file so far, warcinfo records included. */
  get bytesWritten(): number {
    return this.totalBytes;
  }

  /**
   * Writes records that belong together (a response and its request) into one file, each with
   * WARC-Warcinfo-ID naming that file's warcinfo record.
   */
  async writeGroup(records: readonly WarcRecordInput[]): Promise<void> {
    if (!this.handle) await this.nextFile();
    let encoded = await this.encodeGroup(records);
    const groupBytes = encoded.reduce((sum, bytes) => sum + bytes.length, 0);
    if (this.fileRecords > 0 && this.fileBytes + groupBytes > this.options.maxFileBytes) {
      await this.nextFile();
      encoded = await this.encodeGroup(records);
    }
    for (const bytes of encoded) await this.write(bytes);
    this.fileRecords += records.length;
  }

  /** Completes the current file (an export with no records still gets one, with its warcinfo). Returns every file's path. */
  async close(): Promise<string[]> {
    if (!this.handle) await this.nextFile();
    await this.finishFile();
    return this.files;
  }

  /** Closes and removes nothing: an aborted export leaves its .open file for inspection. */
  async abort(): Promise<void> {
    await this.handle?.close();
    this.handle = undefined;
  }

  private async encodeGroup(records: readonly WarcRecordInput[]): Promise<Buffer[]> {
    return Promise.all(
      records.map((record) =>
        this.encode({ ...record, fields: [...(record.fields ?? []), ['WARC-Warcinfo-ID', this.warcinfoId] as const] }),
      ),
    );
  }

  private async encode(record: WarcRecordInput): Promise<Buffer> {
    const bytes = serializeWarcRecord(record);
    return this.options.naming.gzip ? gzip(bytes) : bytes;
  }

  private async nextFile(): Promise<void> {
    await this.finishFile();
    this.serial += 1;
    const name = warcFileName(this.options.naming, this.serial);
    await mkdir(this.options.naming.directory, { recursive: true });
    this.finalPath = path.join(this.options.naming.directory, name);
    this.openPath = `${this.finalPath}.open`;
    if (await exists(this.finalPath)) throw new WarcExportError('WARC_INVALID_OPTION', `${this.finalPath} exists: choose another --output or remove it`);
    // 'wx': never overwrite an earlier export's file or another export running beside this one.
    this.handle = await open(this.openPath, 'wx').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST') throw new WarcExportError('WARC_INVALID_OPTION', `${this.openPath} exists: another export is writing it, or one was interrupted (remove it)`);
      throw error;
    });
    this.fileBytes = 0;
    this.fileRecords = 0;
    this.warcinfoId = warcRecordId(`warcinfo/${name}/${this.options.date.toISOString()}`);
    let block = '';
    for (const [field, value] of this.options.warcinfoFields) block += `${field}: ${value.replace(/[\r\n]+/g, ' ')}\r\n`;
    await this.write(
      await this.encode({
        type: 'warcinfo',
        recordId: this.warcinfoId,
        date: this.options.date,
        fields: [['WARC-Filename', name]],
        contentType: CONTENT_TYPE.warcFields,
        block: Buffer.from(block, 'utf8'),
      }),
    );
  }

  private async finishFile(): Promise<void> {
    if (!this.handle) return;
    await this.handle.close();
    this.handle = undefined;
    await rename(this.openPath, this.finalPath);
    this.files.push(this.finalPath);
  }

  private async write(bytes: Buffer): Promise<void> {
    let at = 0;
    while (at < bytes.length) {
      const { bytesWritten } = await this.handle!.write(bytes, at, bytes.length - at);
      at += bytesWritten;
    }
    this.fileBytes += bytes.length;
    this.totalBytes += bytes.length;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
