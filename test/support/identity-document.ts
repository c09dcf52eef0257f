// The document row a test or bench records for a page it only knows the content identity of, so
// that the near-duplicate index can point at it: no title, text or links, the SimHash as stored.
import { toSignedInt64String } from '../../src/domain/content/index.js';
import type { DocumentRecord } from '../../src/storage/postgres/document-repository.js';
import type { ParsedIdentity } from '../../src/services/documents/near-duplicates.js';

export function identityDocument(doc: ParsedIdentity, crawlId: string): DocumentRecord {
  return {
    fingerprint: doc.fingerprint,
    generation: doc.generation,
    parserVersion: doc.parserVersion,
    crawlId,
    title: null,
    language: null,
    canonicalHint: null,
    metaRobots: null,
    xRobotsTag: null,
    noindex: false,
    nofollow: false,
    charset: 'utf-8',
    textLength: 900,
    normalizedHash: null,
    simhashSigned: doc.simhash === null ? null : toSignedInt64String(doc.simhash),
    minhash: null,
    linksFound: 0,
    linksRegistered: 0,
    extracted: {},
  };
}
