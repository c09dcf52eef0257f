/**
 * Cheap change signals on URL records (migration 0008): what the sitemaps and the listing pages
 * last said about a page, read as the domain's PageSignals, and each origin's record of claims
 * per source checked against our own visits.
 */
import type { PageSignals, SignalSource, SignalTrustRecord } from '../../domain/recrawl/index.js';
import type { Queryable } from './sql-codec.js';

/** The columns {@link pageSignalsOf} reads, for a SELECT list on `urls`. */
export const SIGNAL_COLUMNS =
  'sitemap_lastmod_from, sitemap_lastmod_to, sitemap_read_at, sitemap_lastmod_on_our_clock, listing_digest, listing_read_at, listing_digest_at_visit, listing_previous_digest, listing_previous_read_at';

export interface SignalColumns {
  sitemap_lastmod_from: Date | null;
  sitemap_lastmod_to: Date | null;
  sitemap_read_at: Date | null;
  sitemap_lastmod_on_our_clock: boolean;
  listing_digest: Buffer | null;
  listing_read_at: Date | null;
  listing_digest_at_visit: Buffer | null;
  listing_previous_digest: Buffer | null;
  listing_previous_read_at: Date | null;
}

export function pageSignalsOf(row: SignalColumns): PageSignals {
  const signals: PageSignals = {};
  if (row.sitemap_read_at !== null) {
    const from = row.sitemap_lastmod_from;
    const to = row.sitemap_lastmod_to ?? from;
    signals.sitemap = {
      readAtMs: row.sitemap_read_at.getTime(),
      changedWithin: from === null || to === null ? undefined : { fromMs: from.getTime(), toMs: to.getTime() },
      ...(row.sitemap_lastmod_on_our_clock ? { onOurClock: true } : {}),
    };
  }
  if (row.listing_digest !== null && row.listing_read_at !== null) {
    signals.listing = {
      digest: row.listing_digest.toString('hex'),
      readAtMs: row.listing_read_at.getTime(),
      digestAtVisit: row.listing_digest_at_visit?.toString('hex') ?? null,
      ...(row.listing_previous_digest !== null && row.listing_previous_read_at !== null
        ? { previous: { digest: row.listing_previous_digest.toString('hex'), readAtMs: row.listing_previous_read_at.getTime() } }
        : {}),
    };
  }
  return signals;
}

/** Each origin's checked claims by source; pairs never checked are absent. */
export async function signalTrustOf(db: Queryable, origins: readonly string[]): Promise<Map<string, SignalTrustRecord>> {
  if (origins.length === 0) return new Map();
  const result = await db.query<{ origin: string; source: string; confirmed: number; refuted: number }>(
    'SELECT origin, source, confirmed, refuted FROM cheap_signal_trust WHERE origin = ANY($1::text[])',
    [[...new Set(origins)]],
  );
  return new Map(result.rows.map((row) => [trustKey(row.origin, row.source as SignalSource), { confirmed: row.confirmed, refuted: row.refuted }]));
}

export const trustKey = (origin: string, source: SignalSource): string => `${source} ${origin}`;

/** One checked claim. Call it once per observation (the caller's replay guard makes it so). */
export async function addSignalTrust(db: Queryable, origin: string, source: SignalSource, confirmed: boolean): Promise<void> {
  await db.query(
    `INSERT INTO cheap_signal_trust (origin, source, confirmed, refuted) VALUES ($1, $2, $3, $4)
     ON CONFLICT (origin, source) DO UPDATE SET confirmed = cheap_signal_trust.confirmed + $3, refuted = cheap_signal_trust.refuted + $4, updated_at = now()`,
    [origin, source, confirmed ? 1 : 0, confirmed ? 0 : 1],
  );
}
