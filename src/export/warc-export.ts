/**
 * `crawler export --format warc`: the stored fetches as WARC 1.1 files, in fetch order. Per
 * archived fetch one main record and, when the fetch recorded what it sent, one request record
 * beside it (WARC-Concurrent-To):
 *
 * - 2xx with a stored body, first time this URL had this body (within the exported scope):
 *   `response` with the HTTP head and the decoded body.
 * - 2xx whose body equals an earlier capture of the same URL in scope: `revisit`, profile
 *   identical-payload-digest, referring to that capture.
 * - 304: `revisit`, profile server-not-modified, referring to the capture that holds the payload.
 * - 3xx: `response` with the head and an empty payload (redirect bodies are not stored; the
 *   record says so with WARC-Truncated when the server sent one).
 * - anything else (4xx, 5xx, transport failures) is not archived.
 *
 * Then, per render that stored its DOM (docs/rendering.md), in the order they ended: a `conversion`
 * record of the rendered DOM (the page's URL, with a hash route's fragment), referring to the
 * page's capture, and a `request`/`response` pair for each subresource the render's browser got
 * from a host (the body from the shared subresource cache when it was kept; a response not kept,
 * `no-store`, is its head alone, marked truncated).
 *
 * Record ids are name-based UUIDs of (fingerprint, generation), the same in every export, so a
 * revisit's WARC-Refers-To resolves across files and exports of the same scope.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { BodyStore } from '../storage/object-store/body-store.js';
import { getCrawl } from '../storage/postgres/crawl-repository.js';
import { firstCaptureWithBody, lastCaptureBefore, type CaptureReference } from '../storage/postgres/fetch-history-repository.js';
import { iterateFetches, type FetchRecord } from '../storage/postgres/fetch-repository.js';
import { canonicalEdgesOf, type CanonicalEdge } from '../storage/postgres/canonical-repository.js';
import type { Pool } from '../storage/postgres/pool.js';
import { iterateRenderCaptures, type RenderCapture } from '../storage/postgres/render-repository.js';
import { WarcExportError } from './errors.js';
import { requestHead, responseHead } from './http-message.js';
import { WarcFileWriter, type WarcFileNaming } from './warc-file-writer.js';
import { CONTENT_TYPE, REVISIT_PROFILE, sha256DigestFromHex, warcDate, warcRecordId, type WarcRecordInput } from './warc-record.js';

export interface WarcExportOptions {
  /** Only this crawl's fetches (and revisits refer only to its captures). Default: every crawl. */
  crawlId?: string;
  /** Folder for generated file names (`crawl-<id>-<yyyymmddhhmmss>-00000.warc.gz`). Default '.'; ignored with `file`. */
  directory?: string;
  /** Path of the first file, ending in .warc or .warc.gz; later files insert -00001, -00002... before the extension. */
  file?: string;
  /** Each record its own gzip member (.warc.gz). Default false; implied by a `file` ending in .gz. */
  gzip?: boolean;
  /** A new file starts before one would grow past this many bytes (as written). Default 1_000_000_000, the usual WARC file size. */
  maxFileBytes?: number;
}

export interface WarcExportDeps {
  pool: Pool;
  bodies: Pick<BodyStore, 'getBody'>;
  /** Epoch ms: the warcinfo date and the generated file names. */
  now: () => number;
  /** A line per fetch that could not be exported. Default: nothing. */
  log?: (line: string) => void;
}

export interface WarcExportSummary {
  files: string[];
  bytes: number;
  /** metadata: a page's canonical hint beside its capture; conversion: a rendered DOM. */
  records: { warcinfo: number; response: number; request: number; revisit: number; metadata: number; conversion: number };
  revisits: { identicalPayload: number; notModified: number };
  /** Fetches not written: failures, bodies missing from the store or not matching their hash. Requests not written: fetches recorded before request headers were kept. */
  skipped: { notArchived: number; bodyMissing: number; requestUnknown: number };
}

export const DEFAULT_MAX_WARC_FILE_BYTES = 1_000_000_000;
const REDIRECT_OUTCOMES = new Set(['redirect', 'RedirectLoop', 'TooManyRedirects', 'redirect-invalid']);

export async function exportWarc(deps: WarcExportDeps, options: WarcExportOptions): Promise<WarcExportSummary> {
  const startedAt = new Date(deps.now());
  const naming = warcNaming(options, startedAt);
  const crawl = options.crawlId === undefined ? undefined : await getCrawl(deps.pool, options.crawlId);
  if (options.crawlId !== undefined && !crawl) throw new WarcExportError('WARC_INVALID_OPTION', `no crawl '${options.crawlId}' in this database`);
  const writer = new WarcFileWriter({
    naming,
    maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_WARC_FILE_BYTES,
    date: startedAt,
    warcinfoFields: [
      ['software', 'durable-crawler'],
      ['format', 'WARC File Format 1.1'],
      ['conformsTo', 'http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/'],
      ['isPartOf', options.crawlId ?? 'all crawls'],
      ...(crawl ? ([['http-header-user-agent', crawl.config.userAgent]] as const) : []),
      ['robots', 'obey'],
      ['description', 'Fetch records and stored bodies. Payloads are the decoded bodies: Content-Encoding and Transfer-Encoding are removed and Content-Length is the decoded length.'],
    ],
  });
  const summary: WarcExportSummary = {
    files: [],
    bytes: 0,
    records: { warcinfo: 0, response: 0, request: 0, revisit: 0, metadata: 0, conversion: 0 },
    revisits: { identicalPayload: 0, notModified: 0 },
    skipped: { notArchived: 0, bodyMissing: 0, requestUnknown: 0 },
  };
  const scope = options.crawlId;
  try {
    for await (const fetch of iterateFetches(deps.pool, scope)) {
      const main = await mainRecord(deps, fetch, scope, summary);
      if (!main) continue;
      const group = [main];
      if (fetch.requestHeaders) {
        group.push(requestRecord(fetch, main.recordId));
        summary.records.request += 1;
      } else {
        summary.skipped.requestUnknown += 1;
      }
      const canonical = (await canonicalEdgesOf(deps.pool, [fetch.fingerprint])).get(fetch.fingerprint);
      if (canonical) {
        group.push(canonicalMetadataRecord(fetch, main.recordId, canonical));
        summary.records.metadata += 1;
      }
      await writer.writeGroup(group);
    }
    for await (const render of iterateRenderCaptures(deps.pool, scope)) {
      const group = await renderRecords(deps, render, crawl?.config.userAgent, summary);
      if (group.length > 0) await writer.writeGroup(group);
    }
    summary.files = await writer.close();
  } catch (error) {
    await writer.abort();
    throw error;
  }
  summary.records.warcinfo = summary.files.length;
  summary.bytes = writer.bytesWritten;
  return summary;
}

/** A render's records: the rendered DOM as a conversion of the page's capture, and its fetched subresources as request/response pairs. */
async function renderRecords(deps: WarcExportDeps, render: RenderCapture, userAgent: string | undefined, summary: WarcExportSummary): Promise<WarcRecordInput[]> {
  const records: WarcRecordInput[] = [];
  let dom: Buffer;
  try {
    dom = await deps.bodies.getBody(render.domBodyKey);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== 'NoSuchKey' && code !== 'NotFound') throw error;
    deps.log?.(`skipped the rendered DOM of ${render.url}${render.routeKey}: ${render.domBodyKey} is not in the object store`);
    summary.skipped.bodyMissing += 1;
    return records;
  }
  const conversionId = warcRecordId(`render/${render.fingerprint}/${render.generation}/${render.routeKey}`);
  records.push({
    type: 'conversion',
    recordId: conversionId,
    date: render.finishedAt,
    targetUri: render.url + render.routeKey,
    fields: [['WARC-Refers-To', captureRecordId(render)]],
    contentType: 'text/html; charset=utf-8',
    block: dom,
  });
  summary.records.conversion += 1;
  for (const sub of render.subresources) {
    const recordId = warcRecordId(`render/${render.fingerprint}/${render.generation}/${render.routeKey}/subresource/${sub.seq}`);
    const body = sub.bodyKey ? await deps.bodies.getBody(sub.bodyKey).catch(() => undefined) : undefined;
    const headers: Record<string, string> = sub.contentType ? { 'content-type': sub.contentType } : {};
    const head = responseHead(sub.status ?? 200, headers, body?.length ?? 0);
    records.push({
      type: 'response',
      recordId,
      date: sub.requestedAt,
      targetUri: sub.url,
      fields: [['WARC-Concurrent-To', conversionId], ...(body === undefined ? ([['WARC-Truncated', 'unspecified']] as const) : [])],
      contentType: CONTENT_TYPE.httpResponse,
      block: body === undefined ? head : Buffer.concat([head, body]),
      payloadOffset: head.length,
    });
    const request = requestHead(sub.url, userAgent ? { 'user-agent': userAgent } : {});
    records.push({
      type: 'request',
      recordId: warcRecordId(`render/${render.fingerprint}/${render.generation}/${render.routeKey}/subresource/${sub.seq}/request`),
      date: sub.requestedAt,
      targetUri: sub.url,
      fields: [['WARC-Concurrent-To', recordId]],
      contentType: CONTENT_TYPE.httpRequest,
      block: request,
      payloadOffset: request.length,
    });
    summary.records.response += 1;
    summary.records.request += 1;
  }
  return records;
}

/** The response or revisit record of a fetch; undefined when it is not archived. */
async function mainRecord(deps: WarcExportDeps, fetch: FetchRecord, scope: string | undefined, summary: WarcExportSummary): Promise<WarcRecordInput | undefined> {
  const status = fetch.status ?? 0;
  if (fetch.outcome === 'ok' && fetch.rawHash && fetch.bodyKey) {
    const original = await firstCaptureWithBody(deps.pool, { fingerprint: fetch.fingerprint, rawHash: fetch.rawHash, ...(scope === undefined ? {} : { crawlId: scope }) });
    if (original && !(original.fingerprint === fetch.fingerprint && original.generation === fetch.generation)) {
      summary.records.revisit += 1;
      summary.revisits.identicalPayload += 1;
      return revisitRecord(fetch, REVISIT_PROFILE.identicalPayloadDigest, original, responseHead(status, fetch.headers, fetch.bytes ?? 0), sha256DigestFromHex(fetch.rawHash));
    }
    const body = await storedBody(deps, fetch);
    if (!body) {
      summary.skipped.bodyMissing += 1;
      return undefined;
    }
    const head = responseHead(status, fetch.headers, body.length);
    summary.records.response += 1;
    return { ...baseRecord(fetch, 'response'), contentType: CONTENT_TYPE.httpResponse, block: Buffer.concat([head, body]), payloadOffset: head.length };
  }
  if (fetch.outcome === 'not-modified') {
    const confirmed = await lastCaptureBefore(deps.pool, fetch);
    const holder = confirmed
      ? ((await firstCaptureWithBody(deps.pool, { fingerprint: fetch.fingerprint, rawHash: confirmed.rawHash, ...(scope === undefined ? {} : { crawlId: scope }) })) ?? confirmed)
      : undefined;
    summary.records.revisit += 1;
    summary.revisits.notModified += 1;
    // No payload digest: a 304 carries none, and claiming the earlier one's would be our inference.
    return revisitRecord(fetch, REVISIT_PROFILE.serverNotModified, holder, responseHead(status, fetch.headers, undefined), undefined, scope);
  }
  if (REDIRECT_OUTCOMES.has(fetch.outcome) && status >= 300 && status < 400) {
    const head = responseHead(status, fetch.headers, 0);
    summary.records.response += 1;
    const truncated = (fetch.wireBytes ?? 0) > 0 ? ([['WARC-Truncated', 'unspecified']] as const) : [];
    return { ...baseRecord(fetch, 'response'), fields: [...truncated], contentType: CONTENT_TYPE.httpResponse, block: head, payloadOffset: head.length };
  }
  summary.skipped.notArchived += 1;
  return undefined;
}

function revisitRecord(
  fetch: FetchRecord,
  profile: string,
  original: CaptureReference | undefined,
  head: Buffer,
  payloadDigest: string | undefined,
  scope?: string,
): WarcRecordInput {
  const fields: Array<readonly [string, string]> = [['WARC-Profile', profile]];
  if (original) {
    // The record id only exists in exports whose scope holds the original capture.
    if (scope === undefined || original.crawlId === scope) fields.push(['WARC-Refers-To', captureRecordId(original)]);
    fields.push(['WARC-Refers-To-Target-URI', original.finalUrl], ['WARC-Refers-To-Date', warcDate(original.fetchedAt)]);
  }
  return {
    ...baseRecord(fetch, 'revisit'),
    fields,
    contentType: CONTENT_TYPE.httpResponse,
    block: head,
    ...(payloadDigest === undefined ? {} : { payloadDigest }),
  };
}

/**
 * The page's rel=canonical hint as a metadata record (application/warc-fields) beside its capture:
 * the hinted URL, and whether the crawler obeyed it (docs/discovery.md).
 */
function canonicalMetadataRecord(fetch: FetchRecord, concurrentTo: string, canonical: CanonicalEdge): WarcRecordInput {
  const block = Buffer.from(`canonical: ${canonical.url}\r\ncanonical-verdict: ${canonical.verdict}${canonical.reason ? ` ${canonical.reason}` : ''}\r\n`, 'utf8');
  return {
    type: 'metadata',
    recordId: warcRecordId(`canonical/${fetch.fingerprint}/${fetch.generation}`),
    date: fetch.fetchedAt,
    targetUri: fetch.finalUrl,
    fields: [['WARC-Concurrent-To', concurrentTo]],
    contentType: CONTENT_TYPE.warcFields,
    block,
  };
}

function requestRecord(fetch: FetchRecord, concurrentTo: string): WarcRecordInput {
  const block = requestHead(fetch.finalUrl, fetch.requestHeaders ?? {});
  return {
    type: 'request',
    recordId: warcRecordId(`request/${fetch.fingerprint}/${fetch.generation}`),
    date: fetch.fetchedAt,
    targetUri: fetch.finalUrl,
    fields: [['WARC-Concurrent-To', concurrentTo]],
    contentType: CONTENT_TYPE.httpRequest,
    block,
    payloadOffset: block.length,
  };
}

function baseRecord(fetch: FetchRecord, type: 'response' | 'revisit'): Pick<WarcRecordInput, 'type' | 'recordId' | 'date' | 'targetUri'> {
  return { type, recordId: captureRecordId(fetch), date: fetch.fetchedAt, targetUri: fetch.finalUrl };
}

/** The id of the response or revisit record of a fetch, in every export. */
export function captureRecordId(fetch: { fingerprint: string; generation: number }): string {
  return warcRecordId(`capture/${fetch.fingerprint}/${fetch.generation}`);
}

/** The decoded body, checked against the hash the fetch recorded; undefined when missing or altered. */
async function storedBody(deps: WarcExportDeps, fetch: FetchRecord): Promise<Buffer | undefined> {
  let body: Buffer;
  try {
    body = await deps.bodies.getBody(fetch.bodyKey!);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== 'NoSuchKey' && code !== 'NotFound') throw error;
    deps.log?.(`skipped ${fetch.finalUrl} (generation ${fetch.generation}): body ${fetch.bodyKey} is not in the object store`);
    return undefined;
  }
  if (createHash('sha256').update(body).digest('hex') !== fetch.rawHash) {
    deps.log?.(`skipped ${fetch.finalUrl} (generation ${fetch.generation}): body ${fetch.bodyKey} does not match its SHA-256`);
    return undefined;
  }
  return body;
}

/** Where the files go and what they are called. */
export function warcNaming(options: Pick<WarcExportOptions, 'crawlId' | 'directory' | 'file' | 'gzip'>, startedAt: Date): WarcFileNaming {
  if (options.file !== undefined) {
    const match = /^(.+?)\.warc(\.gz)?$/.exec(path.basename(options.file));
    if (!match) throw new WarcExportError('WARC_INVALID_OPTION', `a WARC file name must end in .warc or .warc.gz: ${options.file}`);
    const gzip = match[2] !== undefined;
    if (options.gzip !== undefined && options.gzip !== gzip) {
      throw new WarcExportError('WARC_INVALID_OPTION', `${options.file} ${gzip ? 'ends in .gz but gzip is off' : 'does not end in .gz but gzip is on'}: name the file .warc.gz for gzip, .warc without`);
    }
    return { directory: path.dirname(options.file), stem: match[1]!, serialOnFirst: false, gzip };
  }
  const stamp = startedAt.toISOString().replace(/\D/g, '').slice(0, 14);
  const label = (options.crawlId ?? 'all').replace(/[^A-Za-z0-9._-]/g, '_');
  return { directory: options.directory ?? '.', stem: `crawl-${label}-${stamp}`, serialOnFirst: true, gzip: options.gzip ?? false };
}
