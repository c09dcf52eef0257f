/**
 * Near-duplicate clustering at parse time (000 §7.2): index the document's SimHash blocks (or,
 * for a short text, its MinHash band keys), look candidates up through that index, confirm them
 * by Hamming distance <= 3 (or estimated Jaccard >= 0.8), and record cluster membership. Members
 * are demoted in recrawl priority; nothing is deleted.
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
  type ContentIdentity,
} from '../domain/content/index.js';
import { indexAndLookUp, leaveCluster, upsertMembership, type ClusteredCandidate } from '../storage/postgres/content-index-repository.js';
import type { PoolClient } from '../storage/postgres/pool.js';

/**
 * Candidates read per lookup at most, those sharing the most index keys first: a key shared by
 * thousands of pages is boilerplate, not similarity, and the nearest match shares the most keys.
 */
const MAX_CANDIDATES = 100;

/** The thresholds stored with each membership, so clusters can be rebuilt when they change (000 §7.2). */
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

export type NearDuplicateOutcome =
  | { status: 'unique' | 'superseded' | 'no-text' }
  | { status: 'representative'; clusterId: string }
  | { status: 'member'; clusterId: string; matched: string; method: 'simhash' | 'minhash'; distance?: number; similarity?: number };

interface Match {
  candidate: ClusteredCandidate;
  method: 'simhash' | 'minhash';
  distance?: number;
  similarity?: number;
}

/** Runs inside the parse transaction, last, so the index locks it takes are held briefly. */
export async function clusterNearDuplicates(client: PoolClient, doc: ParsedIdentity): Promise<NearDuplicateOutcome> {
  const short = doc.minhash !== null;
  const blocks = !short && doc.simhash !== null ? simhashBlockKeys(doc.simhash) : [];
  const bands = short ? minhashBandKeys(doc.minhash!) : [];
  // One round trip under the index key locks: taking them, indexing, and the lookup (candidates
  // with their clusters, and ours); the membership writes go with COMMIT.
  const { current, candidates, own } = await indexAndLookUp(client, doc, blocks, bands, MAX_CANDIDATES);
  if (!current) return { status: 'superseded' };
  if (blocks.length === 0 && bands.length === 0) {
    await leaveCluster(client, doc.fingerprint);
    return { status: 'no-text' };
  }

  const self = identityOf(doc.simhash, doc.minhash);
  const matches: Match[] = [];
  for (const candidate of candidates) {
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
  if (matches.length === 0) {
    await leaveCluster(client, doc.fingerprint);
    return { status: 'unique' };
  }
  matches.sort(
    (a, b) =>
      (a.distance ?? 0) - (b.distance ?? 0) ||
      (b.similarity ?? 0) - (a.similarity ?? 0) ||
      (a.candidate.fingerprint < b.candidate.fingerprint ? -1 : a.candidate.fingerprint > b.candidate.fingerprint ? 1 : 0),
  );

  if (own?.method === 'representative') return { status: 'representative', clusterId: doc.fingerprint };
  // Join the nearest match's cluster; if the nearest is in none, the nearest that is, so clusters do not split.
  const best = matches.find((match) => match.candidate.membership !== undefined) ?? matches[0]!;
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
  return {
    status: 'member',
    clusterId,
    matched: best.candidate.fingerprint,
    method: best.method,
    ...(best.distance === undefined ? {} : { distance: best.distance }),
    ...(best.similarity === undefined ? {} : { similarity: best.similarity }),
  };
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
