/**
 * Retention of raw bodies: deletes the MinIO objects and `bodies` rows that no
 * fetch record references, while crawls keep running. A packed body (body-key.ts) goes with its
 * row; its pack goes once no row and no fetch points into it.
 *
 * The race to beat: a fetch finds a body's object already stored, skips the upload, and commits
 * a fetch pointing at it a moment later. The order that makes that safe:
 *
 * 1. Scan (no locks) for candidates: unreferenced rows, and objects without a row, older than
 *    the cutoff.
 * 2. Per candidate, in one transaction under the body's exclusive advisory lock
 *    (bodyRetentionLockKey): check again that no fetch references it, that its row and its object
 *    are older than the cutoff, then delete the row and the object, then commit.
 * 3. The fetch path takes the same lock, shared, in the transaction that records the fetch
 *    (recordFetchedBody), and after committing makes sure a body it did not upload itself exists
 *    (keepBodyStored), uploading it again if a prune removed it in between.
 * 4. Then packs, older than the cutoff, that no row and no fetch points into. A pack that old gains
 *    a reference only from a fetch that found one of its bodies recorded (BodyPacker's lookup),
 *    whose record takes the pack's shared advisory lock (packRetentionLockKey) as it takes the
 *    body's, and which checks the pack after its commit (step 3). Each pack goes in a transaction
 *    under that lock, exclusive, after checking its references again: a fetch that committed
 *    before the check keeps the pack; one that commits after it finds the pack gone, and stores
 *    its body again.
 *
 * A fetch that commits before step 2's check is seen by it and keeps its body; one that commits
 * after waited for the lock and re-uploads. The cutoff is never later than now - graceMs, so an
 * object that a fetch uploaded itself (and that it will not check again) is too young to delete
 * until that fetch's activity has long timed out (150 s; default grace 1 h).
 */
import { isPackKey, PACK_PREFIX, packKeyOf, sha256OfStandaloneKey, STANDALONE_BODY_PREFIX } from './object-store/body-key.js';
import type { BodyStore, GzippedBody } from './object-store/body-store.js';
import type { PinnedPacks } from './object-store/pinned-packs.js';
import { bodyRetentionLockKey, moveBodyRecords, packRetentionLockKey } from './postgres/body-repository.js';
import { inTransaction, type Pool, type PoolClient } from './postgres/pool.js';

export interface PruneBodiesOptions {
  /** Only bodies whose row and object are older than this many ms. Default: the grace period alone. */
  olderThanMs?: number;
  /** Nothing younger than this is ever deleted, whatever olderThanMs says: a fetch between upload and commit. Default 3_600_000 (1 h). */
  graceMs?: number;
  /** Report what would be deleted, delete nothing. Default false. */
  dryRun?: boolean;
  /** Rows or objects examined per query. Default 500. */
  batchSize?: number;
}

export interface PruneBodiesSummary {
  /** Everything older than this (ISO) and unreferenced was deleted (or, dry run, would be). */
  cutoff: string;
  dryRun: boolean;
  /** Unreferenced rows found by the scan, objects with neither a row nor a reference, and packs nothing points into. */
  candidates: { rows: number; orphanObjects: number; packs: number };
  /** Deleted, or would be in a dry run. `objects` counts the packs too; `storedBytes` is what the objects held. */
  deleted: { rows: number; objects: number; packs: number; storedBytes: number };
  /** Candidates left alone at the final check: a fetch referenced them meanwhile, or they were fresh. */
  kept: { referenced: number; tooYoung: number };
}

export const DEFAULT_BODY_GRACE_MS = 3_600_000;

export interface BodyRetentionDeps {
  pool: Pool;
  bodies: BodyStore;
  /** Epoch ms. */
  now: () => number;
}

export async function pruneBodies(deps: BodyRetentionDeps, options: PruneBodiesOptions = {}): Promise<PruneBodiesSummary> {
  const nowMs = deps.now();
  const graceMs = options.graceMs ?? DEFAULT_BODY_GRACE_MS;
  const cutoff = new Date(nowMs - Math.max(graceMs, options.olderThanMs ?? 0));
  const run: PruneRun = {
    deps,
    cutoff,
    batchSize: options.batchSize ?? 500,
    summary: {
      cutoff: cutoff.toISOString(),
      dryRun: options.dryRun === true,
      candidates: { rows: 0, orphanObjects: 0, packs: 0 },
      deleted: { rows: 0, objects: 0, packs: 0, storedBytes: 0 },
      kept: { referenced: 0, tooYoung: 0 },
    },
    dryRunRowsGoneByPack: new Map(),
  };
  await pruneUnreferencedRows(run);
  await pruneOrphanObjects(run);
  // Packs nothing points into any more (step 4), after the rows above went.
  await prunePacks(run);
  return run.summary;
}

/** One pruning run: what it prunes, and what it has counted so far. */
interface PruneRun {
  deps: BodyRetentionDeps;
  cutoff: Date;
  batchSize: number;
  summary: PruneBodiesSummary;
  /**
   * A dry run deletes no row, so step 4 would find packs still referenced by rows a real run
   * deletes first: it counts those rows per pack instead.
   */
  dryRunRowsGoneByPack: Map<string, number>;
}

/** Deletes one body (row and object) if nothing references it at the final check, and counts what became of it. */
async function settleBody(run: PruneRun, sha256: string, objectKey: string): Promise<void> {
  const { summary } = run;
  const outcome = await deleteIfUnreferenced(run.deps, { sha256, objectKey, cutoff: run.cutoff, dryRun: summary.dryRun });
  if (outcome.kind === 'deleted') {
    const pack = packKeyOf(objectKey);
    if (summary.dryRun && outcome.row && pack !== undefined) run.dryRunRowsGoneByPack.set(pack, (run.dryRunRowsGoneByPack.get(pack) ?? 0) + 1);
    summary.deleted.rows += outcome.row ? 1 : 0;
    summary.deleted.objects += outcome.object ? 1 : 0;
    summary.deleted.storedBytes += outcome.storedBytes;
  } else {
    summary.kept[outcome.kind === 'referenced' ? 'referenced' : 'tooYoung'] += 1;
  }
}

/** Rows nothing points at. Keyset pagination by hash: deletions do not shift the pages. */
async function pruneUnreferencedRows(run: PruneRun): Promise<void> {
  let after: Buffer = Buffer.alloc(0);
  for (;;) {
    const page = await run.deps.pool.query<{ sha256: Buffer; object_key: string }>(
      `SELECT b.sha256, b.object_key FROM bodies b
       WHERE b.sha256 > $1 AND b.created_at < $2
         AND NOT EXISTS (SELECT 1 FROM fetches f WHERE f.raw_hash = b.sha256)
         AND NOT EXISTS (SELECT 1 FROM fetches f WHERE f.body_key COLLATE "C" = b.object_key COLLATE "C")
       ORDER BY b.sha256 LIMIT $3`,
      [after, run.cutoff, run.batchSize],
    );
    for (const row of page.rows) {
      run.summary.candidates.rows += 1;
      await settleBody(run, row.sha256.toString('hex'), row.object_key);
    }
    if (page.rows.length < run.batchSize) break;
    after = page.rows.at(-1)!.sha256;
  }
}

/** Objects without a row: a fetch that uploaded and then never committed (a crash, a lost race). */
async function pruneOrphanObjects(run: PruneRun): Promise<void> {
  let batch: { key: string; sha256: string }[] = [];
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const keys = batch.map((object) => object.key);
    const known = await run.deps.pool.query<{ key: string }>(
      `SELECT object_key AS key FROM bodies WHERE object_key COLLATE "C" = ANY($1)
       UNION SELECT body_key AS key FROM fetches WHERE body_key COLLATE "C" = ANY($1)`,
      [keys],
    );
    const referenced = new Set(known.rows.map((row) => row.key));
    for (const object of batch) {
      if (referenced.has(object.key)) continue;
      run.summary.candidates.orphanObjects += 1;
      await settleBody(run, object.sha256, object.key);
    }
    batch = [];
  };
  for await (const object of listObjects(run.deps.bodies, STANDALONE_BODY_PREFIX)) {
    if (object.lastModified >= run.cutoff) continue;
    const sha256 = sha256OfStandaloneKey(object.key);
    if (!sha256) continue; // not a body this crawler wrote: never ours to delete
    batch.push({ key: object.key, sha256 });
    if (batch.length >= run.batchSize) await flush();
  }
  await flush();
}

/** Packs nothing points into, in batches: one query finds a batch's candidates; each is checked again under its lock. */
async function prunePacks(run: PruneRun): Promise<void> {
  let packs: BodyObject[] = [];
  for await (const object of listObjects(run.deps.bodies, PACK_PREFIX)) {
    if (object.lastModified >= run.cutoff || !isPackKey(object.key)) continue;
    packs.push(object);
    if (packs.length >= run.batchSize) {
      await settlePacks(run, packs);
      packs = [];
    }
  }
  await settlePacks(run, packs);
}

async function settlePacks(run: PruneRun, packs: readonly BodyObject[]): Promise<void> {
  if (packs.length === 0) return;
  const { deps, summary } = run;
  const stillReferenced = (references: Map<string, PackReferences>, key: string): boolean => {
    const referenced = references.get(key);
    return referenced !== undefined && (referenced.byFetch || referenced.rows > (run.dryRunRowsGoneByPack.get(key) ?? 0));
  };
  const references = await packReferences(deps.pool, packs.map((pack) => pack.key));
  for (const pack of packs) {
    if (stillReferenced(references, pack.key)) continue;
    summary.candidates.packs += 1;
    const removed = await inTransaction(deps.pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [packRetentionLockKey(pack.key)]);
      if (stillReferenced(await packReferences(client, [pack.key]), pack.key)) return false;
      if (!summary.dryRun) await deps.bodies.remove(pack.key);
      return true;
    });
    if (!removed) {
      summary.kept.referenced += 1;
      continue;
    }
    summary.deleted.objects += 1;
    summary.deleted.packs += 1;
    summary.deleted.storedBytes += pack.size;
  }
}

interface PackReferences {
  /** Body rows pointing into the pack. */
  rows: number;
  /** Whether a fetch does. */
  byFetch: boolean;
}

/**
 * What points into each of `packKeys` that anything does: how many body rows, and whether a fetch
 * (keys from 'pack#' up to 'pack$', '$' following '#').
 */
async function packReferences(db: Pool | PoolClient, packKeys: readonly string[]): Promise<Map<string, PackReferences>> {
  const result = await db.query<{ key: string; rows: number; by_fetch: boolean }>(
    `SELECT p.key, r.rows, f.by_fetch FROM unnest($1::text[]) AS p(key)
     CROSS JOIN LATERAL (SELECT count(*)::int AS rows FROM bodies WHERE object_key COLLATE "C" >= p.key || '#' AND object_key COLLATE "C" < p.key || '$') r
     CROSS JOIN LATERAL (SELECT EXISTS (SELECT 1 FROM fetches WHERE body_key COLLATE "C" >= p.key || '#' AND body_key COLLATE "C" < p.key || '$') AS by_fetch) f
     WHERE r.rows > 0 OR f.by_fetch`,
    [[...packKeys]],
  );
  return new Map(result.rows.map((row) => [row.key, { rows: row.rows, byFetch: row.by_fetch }]));
}

/**
 * Step 3, for a fetch that recorded a body it did not upload itself (the packer or the store found
 * it stored): once the record has committed, the body must be where the record points. A
 * standalone object is put again if missing (its key is content-addressed). A pack cannot be put
 * again: if a prune removed it meanwhile, the body is stored on its own and the records that
 * pointed at the lost member (the body's row, and every fetch of it) are moved to that object.
 * Returns the key the body is at now. With `pinnedPacks`, a pack found once is not asked for again.
 */
export async function keepBodyStored(
  deps: Pick<BodyRetentionDeps, 'pool' | 'bodies'> & { pinnedPacks?: PinnedPacks },
  input: { sha256: string; key: string; body: GzippedBody },
): Promise<string> {
  const pack = packKeyOf(input.key);
  if (pack === undefined) {
    await deps.bodies.putGzipIfAbsent(input.sha256, input.body);
    return input.key;
  }
  if (deps.pinnedPacks?.has(pack)) return input.key;
  // Our record took the pack's lock: a prune that removed the pack committed before it did.
  if (await deps.bodies.exists(pack)) {
    deps.pinnedPacks?.add(pack);
    return input.key;
  }
  const { key } = await deps.bodies.putGzipIfAbsent(input.sha256, input.body);
  await moveBodyRecords(deps.pool, { sha256: input.sha256, fromKey: input.key, toKey: key });
  return key;
}

type DeleteOutcome = { kind: 'deleted'; row: boolean; object: boolean; storedBytes: number } | { kind: 'referenced' } | { kind: 'too-young' };

/**
 * Step 2 for one body: the final checks and the deletion, under the body's exclusive lock. A packed
 * body's row goes alone; its pack is step 4's.
 */
async function deleteIfUnreferenced(deps: BodyRetentionDeps, input: { sha256: string; objectKey: string; cutoff: Date; dryRun: boolean }): Promise<DeleteOutcome> {
  return inTransaction(deps.pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [bodyRetentionLockKey(input.sha256)]);
    // A new statement after the lock: in READ COMMITTED it sees every fetch committed before we got the lock.
    const hash = Buffer.from(input.sha256, 'hex');
    const check = await client.query<{ referenced: boolean; created_at: Date | null; stored_bytes: number | null }>(
      `SELECT EXISTS (SELECT 1 FROM fetches WHERE raw_hash = $1) OR EXISTS (SELECT 1 FROM fetches WHERE body_key COLLATE "C" = $2) AS referenced,
              (SELECT created_at FROM bodies WHERE sha256 = $1) AS created_at,
              (SELECT stored_bytes FROM bodies WHERE sha256 = $1) AS stored_bytes`,
      [hash, input.objectKey],
    );
    const facts = check.rows[0]!;
    if (facts.referenced) return { kind: 'referenced' };
    if (facts.created_at !== null && facts.created_at >= input.cutoff) return { kind: 'too-young' };
    const pack = packKeyOf(input.objectKey);
    const object = await statBodyObject(deps.bodies, pack ?? input.objectKey);
    if (object && object.lastModified >= input.cutoff) return { kind: 'too-young' };
    const row = facts.created_at !== null;
    // A pack holds other bodies: it stays for step 4, and so do its bytes.
    const deletesObject = object !== undefined && pack === undefined;
    const storedBytes = deletesObject ? Number(facts.stored_bytes ?? object.size) : 0;
    if (input.dryRun) return { kind: 'deleted', row, object: deletesObject, storedBytes };
    // The row first, the object second, both before the commit releases the lock: a fetch waiting
    // on the lock then finds no row and no object, and uploads again.
    if (row) await client.query('DELETE FROM bodies WHERE sha256 = $1', [hash]);
    if (deletesObject) await deps.bodies.remove(input.objectKey);
    return { kind: 'deleted', row, object: deletesObject, storedBytes };
  });
}

interface BodyObject {
  key: string;
  lastModified: Date;
  size: number;
}

async function* listObjects(bodies: BodyStore, prefix: string): AsyncGenerator<BodyObject> {
  const stream = bodies.client.listObjectsV2(bodies.bucket, prefix, true);
  for await (const item of stream as AsyncIterable<{ name?: string; lastModified?: Date; size?: number }>) {
    if (item.name && item.lastModified) yield { key: item.name, lastModified: item.lastModified, size: item.size ?? 0 };
  }
}

async function statBodyObject(bodies: BodyStore, key: string): Promise<BodyObject | undefined> {
  try {
    const stat = await bodies.client.statObject(bodies.bucket, key);
    return { key, lastModified: stat.lastModified, size: stat.size };
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'NotFound' || code === 'NoSuchKey') return undefined;
    throw error;
  }
}
