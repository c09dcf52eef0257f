import { bodyRecordingOf } from '../../domain/fetching/index.js';
import { changeKey } from '../../domain/recrawl/index.js';
import type { FetchedBody, FetchResponseHead } from '../../http/index.js';
import { keepBodyStored } from '../../storage/body-retention.js';
import type { BodyPacker } from '../../storage/object-store/body-packer.js';
import type { PinnedPacks } from '../../storage/object-store/pinned-packs.js';
import { recordFetchedBody, type FetchedBodyRecords } from '../../storage/postgres/fetch-repository.js';
import { inTransaction } from '../../storage/postgres/pool.js';
import type { FetchUrlResult } from '../../contracts/activities.js';
import { recordVisit } from '../documents/change-detection.js';
import type { BodySpool } from './body-spool.js';
import { linkCanonicalOf, xRobotsTagOf } from './recorded-result.js';
import { storeWaitingOutOutages } from './store-waiting.js';
import type { BodyHolding } from './url-fetch-types.js';
import type { BaseFetchRecord, ResponseTiming, UrlFetchStep } from './url-fetch-step.js';

/** Where bodies go: packs for small ones (checked once each for a recrawl's unchanged pages), the store for the rest. */
export interface BodyStorage {
  packer: BodyPacker;
  pinnedPacks: PinnedPacks;
}

/** A 2xx body that arrived whole and is kept: what its storing needs. */
export interface KeptBody {
  head: FetchResponseHead;
  body: FetchedBody;
  spool: BodySpool;
  baseRecord: BaseFetchRecord;
  timing: ResponseTiming;
  /** The body is parsed (isParsedBody). */
  parse: boolean;
  /** The burst's request to hold the decoded body; undefined for a sitemap (read from the store by its reader). */
  holding: BodyHolding | undefined;
}

/**
 * Stores a kept body once (a body spooled in memory goes into a pack; one spooled to a file is
 * large and stored on its own), then writes its records where bodyRecordingOf says. A body stored
 * before our reference committed may have been pruned in between (`crawler bodies prune` deletes
 * under the lock recordFetchedBody takes): it must exist once that reference has.
 */
export async function storeFetchedBody(step: UrlFetchStep, storage: BodyStorage, kept: KeptBody): Promise<FetchUrlResult> {
  const { deps, input, options } = step;
  const { body, spool } = kept;
  const storedBytes = spool.size;
  const stored = spool.contents();
  const what = `the body of ${input.url}`;
  const waiter = { crawlId: input.crawlId, ...(options.onStoreWaiting ? { onStoreWaiting: options.onStoreWaiting } : {}) };
  const { key, created } = await storeWaitingOutOutages(deps, step.scope, waiter, what, () =>
    'bytes' in stored ? storage.packer.add(body.sha256, stored.bytes) : deps.bodies.putGzipIfAbsent(body.sha256, stored),
  );
  if (created) deps.metrics?.bodyStored(storedBytes);
  const records = fetchedBodyRecordsOf(step, kept, key, storedBytes);
  // Held before the records are written: a stored body whose record is deferred must be parsed
  // from memory, as its object is only known to exist once that record commits.
  const held = kept.holding && kept.parse ? holdDecoded(spool, kept.holding) : false;
  const keepingDeps = { pool: deps.pool, bodies: deps.bodies, pinnedPacks: storage.pinnedPacks };
  const keepStored = (): Promise<string> => storeWaitingOutOutages(deps, step.scope, waiter, what, () => keepBodyStored(keepingDeps, { sha256: body.sha256, key, body: stored }));
  const recording = bodyRecordingOf({ parse: kept.parse, callerDefers: options.deferRecord !== undefined, created, held, inMemory: 'bytes' in stored });
  switch (recording.where) {
    case 'defer':
      // A burst's page: its parse writes these records in its transaction (it records the visit too).
      options.deferRecord!(records);
      break;
    case 'defer-keeping':
      // A recrawl's unchanged page: the same, and the object is checked after that commit.
      options.deferRecord!(records, keepStored);
      break;
    case 'record':
      // The common case of the one-URL path, one round trip: the parse records the page's visit.
      await recordFetchedBody(deps.pool, records);
      break;
    case 'record-with-visit':
      await inTransaction(deps.pool, async (client) => {
        await recordFetchedBody(client, records);
        // Nothing parses this body: its bytes are its content.
        await recordVisit(client, { fingerprint: input.fingerprint, generation: input.generation, crawlId: input.crawlId, observedAtMs: kept.timing.startedAtMs, content: { kind: 'content', changeKey: changeKey('r', body.sha256) } });
      });
      break;
  }
  return fetchedResultOf(step, kept, recording.keepsStored ? await keepStored() : key);
}

function fetchedBodyRecordsOf(step: UrlFetchStep, kept: KeptBody, key: string, storedBytes: number): FetchedBodyRecords {
  const { input } = step;
  const { head, body } = kept;
  return {
    body: { sha256: body.sha256, objectKey: key, bytes: body.bytes, storedBytes },
    fetch: { ...kept.baseRecord, outcome: 'ok', rawHash: body.sha256, bodyKey: key, bytes: body.bytes, redirectLocation: null },
    url: {
      fingerprint: input.fingerprint,
      state: 'ok',
      status: head.status,
      fetchedAt: new Date(kept.timing.startedAtMs),
      success: true,
      etag: head.headers['etag'] ?? null,
      lastModified: head.headers['last-modified'] ?? null,
      rawHash: body.sha256,
      bytes: body.bytes,
    },
    frontier: { crawlId: input.crawlId, fingerprint: input.fingerprint, generation: input.generation },
  };
}

function fetchedResultOf(step: UrlFetchStep, kept: KeptBody, bodyKey: string): FetchUrlResult {
  return {
    kind: 'fetched',
    status: kept.head.status,
    bodyKey,
    rawHash: kept.body.sha256,
    bytes: kept.body.bytes,
    contentType: kept.head.headers['content-type'],
    parse: kept.parse,
    finalUrl: step.url.url,
    ...kept.timing,
    ...xRobotsTagOf(kept.baseRecord.headers),
    ...linkCanonicalOf(kept.baseRecord.headers, step.url.url),
  };
}

/** Hands the holding the decoded body of a page to parse, if the spool kept it and the budget has room for it. */
function holdDecoded(spool: BodySpool, holding: BodyHolding): boolean {
  const decoded = spool.decoded();
  const held = decoded && holding.budget.hold(decoded);
  if (!held) return false;
  holding.take(held);
  return true;
}
