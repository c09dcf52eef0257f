/**
 * Near-duplicate clustering at parse time (docs/design.md, "Near-duplicates"): index the document's SimHash blocks (or,
 * for a short text, its MinHash band keys), look candidates up through that index, confirm them
 * by Hamming distance <= 3 (or estimated Jaccard >= 0.8), and record cluster membership. Members
 * are demoted in recrawl priority; nothing is deleted. Lookups read cluster leaders only
 * (representatives and pages in no cluster), a bounded number a key: a page joins a cluster by
 * comparing with its representative, so its cost does not grow with the pages alike to it.
 */
import {
  DEFAULT_MINHASH_OPTIONS,
  DEFAULT_NEAR_DUPLICATE_OPTIONS,
  MINHASH_BANDS,
  SHORT_DOCUMENT_CHARS,
  fromSignedInt64String,
  isNearDuplicate,
  minhashBandKeys,
  simhashBlockKeys,
  toSignedInt64String,
  type ContentIdentity,
} from '../../domain/content/index.js';
import { indexAndLookUpMany, leaveCluster, upsertMembership, type ClusteredCandidate, type ClusterMembership } from '../../storage/postgres/content-index-repository.js';
import type { PoolClient } from '../../storage/postgres/pool.js';

/**
 * What one lookup reads at most: 64 leaders a key (a key more pages lead under is a template's or a
 * vocabulary's, not evidence of nearness), 16 in the first look without locks, of which SimHash
 * candidates are only those within the near-duplicate distance, nearest first; MinHash candidates
 * those sharing the most bands.
 */
export const LOOKUP_LIMITS = Object.freeze({
  maxCandidates: 100,
  maxSimhashDistanceBits: DEFAULT_NEAR_DUPLICATE_OPTIONS.maxSimhashDistance,
  maxRowsPerKey: 64,
  maxRowsPerKeyFirstLook: 16,
});

/** The thresholds stored with each membership, so clusters can be rebuilt when they change (docs/design.md, "Near-duplicates"). */
export const NEAR_DUPLICATE_THRESHOLDS = Object.freeze({
  maxSimhashDistance: DEFAULT_NEAR_DUPLICATE_OPTIONS.maxSimhashDistance,
  minJaccard: DEFAULT_NEAR_DUPLICATE_OPTIONS.minJaccard,
  shortDocumentChars: SHORT_DOCUMENT_CHARS,
  shingleSize: DEFAULT_MINHASH_OPTIONS.shingleSize,
  permutations: DEFAULT_MINHASH_OPTIONS.permutations,
  bands: MINHASH_BANDS,
});

export interface ParsedIdentity {
  fingerprint: string;
  generation: number;
  parserVersion: number;
  /** Unsigned SimHash of the normalized text; null when it has no tokens. */
  simhash: bigint | null;
  /** Present exactly when the normalized text is short (under 300 characters). */
  minhash: number[] | null;
}

/** Present when the lookup read only the first LOOKUP_LIMITS.maxRowsPerKey leaders of some of its keys: how many keys. */
interface CappedRead {
  cappedKeys?: number;
}

export type NearDuplicateOutcome =
  | { status: 'superseded' | 'no-text' }
  | ({ status: 'unique' } & CappedRead)
  | ({ status: 'representative'; clusterId: string } & CappedRead)
  | ({ status: 'member'; clusterId: string; matched: string; method: 'simhash' | 'minhash'; distance?: number; similarity?: number } & CappedRead);

interface Match {
  candidate: ClusteredCandidate;
  method: 'simhash' | 'minhash';
  distance?: number;
  similarity?: number;
}

/** Runs inside the parse transaction, last, so the index locks it takes are held briefly. */
export async function clusterNearDuplicates(client: PoolClient, doc: ParsedIdentity): Promise<NearDuplicateOutcome> {
  return (await clusterNearDuplicatesOf(client, [doc]))[0]!;
}

/**
 * Clusters several documents (a parse batch's, no two of one URL) in one round trip under the
 * index key locks: each as if clustered alone after the ones before it. A document of the batch is
 * a candidate for the later ones that share one of its keys, and the memberships the earlier ones
 * wrote are what the later ones see; the membership writes go with COMMIT.
 */
export async function clusterNearDuplicatesOf(client: PoolClient, docs: readonly ParsedIdentity[]): Promise<NearDuplicateOutcome[]> {
  const keyed = docs.map((doc) => {
    const short = doc.minhash !== null;
    return {
      doc,
      simhashSigned: doc.simhash === null ? null : toSignedInt64String(doc.simhash),
      blocks: !short && doc.simhash !== null ? simhashBlockKeys(doc.simhash) : [],
      bands: short ? minhashBandKeys(doc.minhash!) : [],
      self: identityOf(doc.simhash, doc.minhash),
    };
  });
  // A long text near an earlier one of the batch joins a cluster whatever the lookups find: like a
  // page the first look finds a near leader for, it need not lock its keys or look again.
  const withMates = keyed.map((entry, index) => ({ ...entry, batchMate: batchMateOf(keyed, index) }));
  // One round trip under the index key locks: taking them, indexing, and the lookups (candidates
  // with their clusters, and each document's own); the membership writes go with COMMIT.
  const lookups = await indexAndLookUpMany(client, withMates, LOOKUP_LIMITS);
  /** Memberships this batch wrote, over what the lookups read: null where a member left its cluster. */
  const decided = new Map<string, ClusterMembership | null>();
  const membershipNow = (fingerprint: string, read: ClusterMembership | undefined): ClusterMembership | undefined => {
    const written = decided.get(fingerprint);
    return written === undefined ? read : (written ?? undefined);
  };
  const indexedBefore: IndexedBefore = [];
  const outcomes: NearDuplicateOutcome[] = [];
  for (const [index, entry] of keyed.entries()) {
    const { doc, blocks, bands, self } = entry;
    const { current, candidates, own: ownRead, cappedKeys } = lookups[index]!;
    if (!current) {
      outcomes.push({ status: 'superseded' });
      continue;
    }
    const capped: CappedRead = cappedKeys > 0 ? { cappedKeys } : {};
    const keys = new Set([...blocks.map((key) => `s${key.block}:${key.key}`), ...bands.map((key) => `m${key.band}:${key.key}`)]);
    const own = membershipNow(doc.fingerprint, ownRead);
    const leave = async (status: 'no-text' | 'unique'): Promise<void> => {
      await leaveCluster(client, doc.fingerprint);
      // A representative stays one (leaveCluster keeps its row).
      decided.set(doc.fingerprint, own?.method === 'representative' ? own : null);
      outcomes.push(status === 'unique' ? { status, ...capped } : { status });
    };
    if (keys.size === 0) {
      await leave('no-text');
      continue;
    }
    // The batch's earlier documents sharing a key with this one are candidates too (the lookup cannot see them).
    const matches = nearestMatchesOf(self, candidates, batchCandidatesOf(indexedBefore, keys, doc.fingerprint), membershipNow);
    indexedBefore.push({ entry, keys });
    if (matches.length === 0) {
      await leave('unique');
      continue;
    }

    if (own?.method === 'representative') {
      outcomes.push({ status: 'representative', clusterId: doc.fingerprint, ...capped });
      continue;
    }
    // Join the nearest match's cluster; if the nearest is in none, the nearest that is, so clusters do not split.
    const best = matches.find((match) => match.candidate.membership !== undefined) ?? matches[0]!;
    const clusterId = await joinClusterOf(client, doc, best, decided);
    outcomes.push({
      status: 'member',
      clusterId,
      matched: best.candidate.fingerprint,
      method: best.method,
      ...(best.distance === undefined ? {} : { distance: best.distance }),
      ...(best.similarity === undefined ? {} : { similarity: best.similarity }),
      ...capped,
    });
  }
  return outcomes;
}

/**
 * The position (from 1) of the first document before `index` in the batch whose long text is near
 * this one's (so they share a SimHash block), or 0: only SimHash-keyed documents, whose nearness
 * is decided here as the batch step below decides it.
 */
function batchMateOf(keyed: readonly { blocks: readonly unknown[]; self: ContentIdentity | undefined }[], index: number): number {
  const self = keyed[index]!;
  if (self.blocks.length === 0 || self.self === undefined) return 0;
  for (let earlier = 0; earlier < index; earlier++) {
    const other = keyed[earlier]!;
    if (other.blocks.length > 0 && other.self !== undefined && isNearDuplicate(self.self, other.self).near) return earlier + 1;
  }
  return 0;
}

/** Documents of the batch indexed before the one at hand, by the keys they were indexed under. */
type IndexedBefore = { entry: { doc: ParsedIdentity }; keys: Set<string> }[];

/** The batch's earlier documents that share a key with this one, as candidates. */
function batchCandidatesOf(indexedBefore: IndexedBefore, keys: ReadonlySet<string>, fingerprint: string): ClusteredCandidate[] {
  return indexedBefore
    .filter((earlier) => [...earlier.keys].some((key) => keys.has(key)) && earlier.entry.doc.fingerprint !== fingerprint)
    .map(({ entry: earlier }) => ({
      fingerprint: earlier.doc.fingerprint,
      generation: earlier.doc.generation,
      parserVersion: earlier.doc.parserVersion,
      simhashSigned: earlier.doc.simhash === null ? null : toSignedInt64String(earlier.doc.simhash),
      minhash: earlier.doc.minhash,
    }));
}

/** The candidates near this document, with the memberships the batch wrote over those read, nearest first. */
function nearestMatchesOf(
  self: ContentIdentity | undefined,
  candidates: readonly ClusteredCandidate[],
  batchCandidates: readonly ClusteredCandidate[],
  membershipNow: (fingerprint: string, read: ClusterMembership | undefined) => ClusterMembership | undefined,
): Match[] {
  const inBatch = new Set(batchCandidates.map((candidate) => candidate.fingerprint));
  const matches: Match[] = [];
  for (const read of [...candidates.filter((candidate) => !inBatch.has(candidate.fingerprint)), ...batchCandidates]) {
    const membership = membershipNow(read.fingerprint, read.membership);
    const candidate: ClusteredCandidate = { ...read, ...(membership ? { membership } : {}) };
    if (!membership) delete candidate.membership;
    const other = identityOf(candidate.simhashSigned === null ? null : fromSignedInt64String(candidate.simhashSigned), candidate.minhash);
    if (!self || !other) continue;
    const verdict = isNearDuplicate(self, other);
    if (!verdict.near) continue;
    matches.push({
      candidate,
      method: verdict.method,
      ...(verdict.distance === undefined ? {} : { distance: verdict.distance }),
      ...(verdict.jaccard === undefined ? {} : { similarity: verdict.jaccard }),
    });
  }
  return matches.sort(
    (a, b) =>
      (a.distance ?? 0) - (b.distance ?? 0) ||
      (b.similarity ?? 0) - (a.similarity ?? 0) ||
      (a.candidate.fingerprint < b.candidate.fingerprint ? -1 : a.candidate.fingerprint > b.candidate.fingerprint ? 1 : 0),
  );
}

/** Writes the document into its best match's cluster (founding one the match represents if it is in none); returns the cluster. */
async function joinClusterOf(client: PoolClient, doc: ParsedIdentity, best: Match, decided: Map<string, ClusterMembership | null>): Promise<string> {
  let clusterId = best.candidate.membership?.clusterId;
  if (clusterId === undefined) {
    // The match was indexed first: it represents the new cluster.
    clusterId = best.candidate.fingerprint;
    await upsertMembership(client, {
      fingerprint: clusterId,
      clusterId,
      method: 'representative',
      distance: 0,
      similarity: null,
      matched: null,
      generation: best.candidate.generation,
      parserVersion: best.candidate.parserVersion,
      threshold: NEAR_DUPLICATE_THRESHOLDS,
    });
    decided.set(clusterId, { fingerprint: clusterId, clusterId, method: 'representative' });
  }
  await upsertMembership(client, {
    fingerprint: doc.fingerprint,
    clusterId,
    method: best.method,
    distance: best.distance ?? null,
    similarity: best.similarity ?? null,
    matched: best.candidate.fingerprint,
    generation: doc.generation,
    parserVersion: doc.parserVersion,
    threshold: NEAR_DUPLICATE_THRESHOLDS,
  });
  decided.set(doc.fingerprint, { fingerprint: doc.fingerprint, clusterId, method: best.method });
  return clusterId;
}

/**
 * Documents store a MinHash exactly when their normalized text is short, so the length that
 * isNearDuplicate checks is stood in for by that: MinHash decides between two short texts,
 * SimHash otherwise.
 */
function identityOf(simhash: bigint | null, minhash: number[] | null): ContentIdentity | undefined {
  if (minhash !== null && minhash.length > 0) return { textLength: 0, simhash: simhash ?? 0n, minhash };
  if (simhash === null) return undefined;
  return { textLength: SHORT_DOCUMENT_CHARS, simhash };
}
