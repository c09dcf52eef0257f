/**
 * What fetches cost (docs/design.md, "Cost per detected change"): each host's validator and 304 figures, folded in from every finished
 * crawl (host_costs), and a crawl's requests by host and by page group, for its bill, its cost per
 * detected change and its wasted fetches. Migration 0027 says what each column holds.
 */
import type { HostValidatorRecord } from '../../domain/recrawl/index.js';
import type { Queryable } from './sql-codec.js';

/** Older crawls' figures are multiplied by this at each fold: a host that changed its ways is seen to within a few crawls. */
export const HOST_COST_DECAY = 0.9;

/** Fetch outcomes recorded for a response (the fetch activity's own records); other outcomes are failures recorded at settlement. */
const RESPONSE_OUTCOMES = `('ok', 'not-modified', 'redirect', 'redirect-invalid', 'RedirectLoop', 'TooManyRedirects')`;

/**
 * Folds a finished crawl's requests into its hosts' cost figures, once: a repeated call (a retried
 * crawl finish) finds the crawl folded and changes nothing. A conditional request counts as one to
 * unchanged content when it was answered 304 or with the bytes of the URL's previous copy; of
 * those, the 304s are validators honoured. Returns the hosts updated.
 */
export async function foldHostCosts(db: Queryable, crawlId: string): Promise<number> {
  const result = await db.query(
    `WITH fold AS (INSERT INTO host_cost_folds (crawl_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING crawl_id),
     requests AS (
       SELECT u.host, f.outcome, f.sent_bytes + f.received_bytes AS transfer,
              COALESCE(f.request_headers ? 'if-none-match' OR f.request_headers ? 'if-modified-since', false) AS conditional,
              -- The previous copy is looked up only for a conditional 2xx: the one question it answers.
              CASE WHEN f.outcome = 'ok' AND (f.request_headers ? 'if-none-match' OR f.request_headers ? 'if-modified-since')
                   THEN f.raw_hash = (SELECT p.raw_hash FROM fetches p
                                      WHERE p.fingerprint = f.fingerprint AND p.generation < f.generation AND p.raw_hash IS NOT NULL
                                      ORDER BY p.generation DESC LIMIT 1)
                   ELSE false END AS same_bytes
       FROM fetches f JOIN urls u ON u.fingerprint = f.fingerprint
       WHERE f.crawl_id = $1 AND f.outcome IN ('ok', 'not-modified') AND f.sent_bytes IS NOT NULL AND EXISTS (SELECT 1 FROM fold)),
     per_host AS (
       SELECT host,
              count(*) FILTER (WHERE conditional AND (outcome = 'not-modified' OR COALESCE(same_bytes, false))) AS conditional_unchanged,
              count(*) FILTER (WHERE conditional AND outcome = 'not-modified') AS conditional_not_modified,
              count(*) FILTER (WHERE outcome = 'not-modified') AS not_modified_requests,
              COALESCE(sum(transfer) FILTER (WHERE outcome = 'not-modified'), 0) AS not_modified_transfer_bytes,
              count(*) FILTER (WHERE outcome = 'ok') AS full_requests,
              COALESCE(sum(transfer) FILTER (WHERE outcome = 'ok'), 0) AS full_transfer_bytes
       FROM requests GROUP BY host)
     INSERT INTO host_costs (host, conditional_unchanged, conditional_not_modified, not_modified_requests, not_modified_transfer_bytes, full_requests, full_transfer_bytes)
     SELECT host, conditional_unchanged, conditional_not_modified, not_modified_requests, not_modified_transfer_bytes, full_requests, full_transfer_bytes
     FROM per_host ORDER BY host
     ON CONFLICT (host) DO UPDATE SET
       conditional_unchanged = host_costs.conditional_unchanged * $2 + EXCLUDED.conditional_unchanged,
       conditional_not_modified = host_costs.conditional_not_modified * $2 + EXCLUDED.conditional_not_modified,
       not_modified_requests = host_costs.not_modified_requests * $2 + EXCLUDED.not_modified_requests,
       not_modified_transfer_bytes = host_costs.not_modified_transfer_bytes * $2 + EXCLUDED.not_modified_transfer_bytes,
       full_requests = host_costs.full_requests * $2 + EXCLUDED.full_requests,
       full_transfer_bytes = host_costs.full_transfer_bytes * $2 + EXCLUDED.full_transfer_bytes,
       updated_at = now()`,
    [crawlId, HOST_COST_DECAY],
  );
  return result.rowCount ?? 0;
}

/** Hosts' validator and 304 figures, by host; hosts never folded are absent. */
export async function hostValidatorRecords(db: Queryable, hosts: readonly string[]): Promise<Map<string, HostValidatorRecord>> {
  if (hosts.length === 0) return new Map();
  const result = await db.query<{
    host: string;
    conditional_unchanged: number;
    conditional_not_modified: number;
    not_modified_requests: number;
    not_modified_transfer_bytes: number;
  }>(
    `SELECT host, conditional_unchanged, conditional_not_modified, not_modified_requests, not_modified_transfer_bytes FROM host_costs WHERE host = ANY($1::text[])`,
    [[...new Set(hosts)]],
  );
  return new Map(
    result.rows.map((row) => [
      row.host,
      {
        conditionalUnchanged: row.conditional_unchanged,
        conditionalNotModified: Math.min(row.conditional_not_modified, row.conditional_unchanged),
        notModifiedRequests: row.not_modified_requests,
        notModifiedTransferBytes: row.not_modified_transfer_bytes,
      },
    ]),
  );
}

/** A crawl's requests in one group (a host, a page group): what they cost and what they found. */
export interface RequestGroupFigures {
  requests: number;
  /** Requests answered with a response the crawler could use: 2xx, 304, 3xx. */
  successfulRequests: number;
  failedRequests: number;
  sentBytes: number;
  receivedBytes: number;
  /** Bytes of the failed requests (part of sent + received). */
  failedTransferBytes: number;
  /** Visits that saw the content change. */
  changes: number;
  /** First visits of a page (nothing to compare with): not waste, not a change. */
  baselines: number;
  /** Requests that found no change: 304s, unchanged copies, redirects and failures. */
  wasted: number;
}

export interface CrawlCostRows {
  totals: RequestGroupFigures;
  /** The `topHosts` hosts that cost the most (by bytes, or by successful requests when `rankBy` says so). */
  byHost: (RequestGroupFigures & { host: string })[];
  /**
   * Every page group of the crawl: a path's first segment, whether more of the path follows it,
   * and whether the page is one of the crawl's listing pages (pageTypeOfPath names the group).
   */
  byPathGroup: (RequestGroupFigures & { firstSegment: string; deeper: boolean; listing: boolean })[];
}

/**
 * A crawl's requests, grouped: responses from its fetch records (their bytes as recorded), failed
 * requests from its attempts that sent one. Reads the crawl's rows once per grouping; the page
 * groups are few (first path segments) whatever the crawl's size.
 */
export async function crawlCostRows(
  db: Queryable,
  crawlId: string,
  options: { listingPrefixes: readonly string[]; topHosts: number; rankBy: 'bytes' | 'requests' },
): Promise<CrawlCostRows> {
  const figures = `count(*)::bigint AS requests,
       count(*) FILTER (WHERE ok)::bigint AS successful_requests,
       count(*) FILTER (WHERE NOT ok)::bigint AS failed_requests,
       COALESCE(sum(sent), 0)::bigint AS sent_bytes,
       COALESCE(sum(received), 0)::bigint AS received_bytes,
       COALESCE(sum(sent + received) FILTER (WHERE NOT ok), 0)::bigint AS failed_transfer_bytes,
       count(*) FILTER (WHERE verdict = 'changed')::bigint AS changes,
       count(*) FILTER (WHERE verdict = 'baseline')::bigint AS baselines`;
  const requests = `WITH requests AS (
       SELECT f.fingerprint, true AS ok, COALESCE(f.sent_bytes, 0) AS sent, COALESCE(f.received_bytes, 0) AS received, o.verdict
       FROM fetches f LEFT JOIN url_observations o ON o.fingerprint = f.fingerprint AND o.generation = f.generation
       WHERE f.crawl_id = $1 AND f.outcome IN ${RESPONSE_OUTCOMES}
       UNION ALL
       SELECT a.fingerprint, false, a.sent_bytes, a.received_bytes, NULL
       FROM attempts a WHERE a.crawl_id = $1 AND a.stage = 'fetch' AND a.sent_bytes IS NOT NULL),
     located AS (
       SELECT r.*, u.host, split_part(substr(u.url, length(u.origin) + 1), '?', 1) AS path,
              EXISTS (SELECT 1 FROM unnest($2::text[]) AS p(prefix) WHERE starts_with(u.url, p.prefix)) AS listing
       FROM requests r JOIN urls u ON u.fingerprint = r.fingerprint)`;
  const order = options.rankBy === 'requests' ? 'count(*) FILTER (WHERE ok) DESC, sum(sent + received) DESC' : 'sum(sent + received) DESC, count(*) DESC';
  const [totals, hosts, groups] = await Promise.all([
    db.query<FigureRow>(`${requests} SELECT ${figures} FROM located`, [crawlId, options.listingPrefixes]),
    db.query<FigureRow & { host: string }>(`${requests} SELECT host, ${figures} FROM located GROUP BY host ORDER BY ${order}, host LIMIT $3`, [crawlId, options.listingPrefixes, options.topHosts]),
    db.query<FigureRow & { first_segment: string; deeper: boolean; listing: boolean }>(
      `${requests} SELECT split_part(path, '/', 2) AS first_segment, length(path) > length(split_part(path, '/', 2)) + 1 AS deeper, listing, ${figures}
       FROM located GROUP BY 1, 2, 3`,
      [crawlId, options.listingPrefixes],
    ),
  ]);
  return {
    totals: figuresOf(totals.rows[0]),
    byHost: hosts.rows.map((row) => ({ host: row.host, ...figuresOf(row) })),
    byPathGroup: groups.rows.map((row) => ({ firstSegment: row.first_segment, deeper: row.deeper, listing: row.listing, ...figuresOf(row) })),
  };
}

interface FigureRow {
  requests: string;
  successful_requests: string;
  failed_requests: string;
  sent_bytes: string;
  received_bytes: string;
  failed_transfer_bytes: string;
  changes: string;
  baselines: string;
}

function figuresOf(row: FigureRow | undefined): RequestGroupFigures {
  const n = (value: string | undefined): number => Number(value ?? 0);
  const requests = n(row?.requests);
  const changes = n(row?.changes);
  const baselines = n(row?.baselines);
  return {
    requests,
    successfulRequests: n(row?.successful_requests),
    failedRequests: n(row?.failed_requests),
    sentBytes: n(row?.sent_bytes),
    receivedBytes: n(row?.received_bytes),
    failedTransferBytes: n(row?.failed_transfer_bytes),
    changes,
    baselines,
    wasted: requests - changes - baselines,
  };
}

export interface RenderingCostRow {
  renders: number;
  cpuMs: number;
  subresourceRequests: number;
  successfulSubresourceRequests: number;
  subresourceBytes: number;
  cachedSubresources: number;
}

/** A crawl's renders that ran and what their browsers sent to the network (render_subresources: migration 0028). */
export async function renderingCostRow(db: Queryable, crawlId: string): Promise<RenderingCostRow> {
  const { rows } = await db.query<{ renders: string; cpu_ms: string; requests: string; successful: string; bytes: string; cached: string }>(
    `SELECT
       (SELECT count(*) FROM renders WHERE crawl_id = $1 AND state IN ('rendered', 'partial', 'failed', 'dead'))::bigint AS renders,
       (SELECT COALESCE(sum(cpu_ms), 0) FROM renders WHERE crawl_id = $1)::bigint AS cpu_ms,
       count(*) FILTER (WHERE s.outcome IN ('fetched', 'revalidated', 'redirect', 'failed'))::bigint AS requests,
       count(*) FILTER (WHERE s.outcome IN ('fetched', 'revalidated'))::bigint AS successful,
       -- A 304's recorded bytes are the cached body's, which did not travel again.
       COALESCE(sum(s.bytes) FILTER (WHERE s.outcome IN ('fetched', 'redirect', 'failed')), 0)::bigint AS bytes,
       count(*) FILTER (WHERE s.outcome = 'cached')::bigint AS cached
     FROM render_subresources s WHERE s.crawl_id = $1`,
    [crawlId],
  );
  const row = rows[0];
  return {
    renders: Number(row?.renders ?? 0),
    cpuMs: Number(row?.cpu_ms ?? 0),
    subresourceRequests: Number(row?.requests ?? 0),
    successfulSubresourceRequests: Number(row?.successful ?? 0),
    subresourceBytes: Number(row?.bytes ?? 0),
    cachedSubresources: Number(row?.cached ?? 0),
  };
}

/** One robots.txt request as it crossed the wire: a hop of a refresh's redirect chain. */
export interface RobotsRequestRecord {
  /** 0 for the first request of the refresh, then one more per redirect followed. */
  hop: number;
  /** The response's status; absent when the request failed below HTTP. */
  status?: number;
  sentBytes: number;
  receivedBytes: number;
}

/** A robots.txt refresh's requests, as charged to the crawl that asked for it. */
export interface RobotsRequestsBill {
  crawlId: string;
  callId: string;
  attempt: number;
  origin: string;
  requests: readonly RobotsRequestRecord[];
}

/**
 * The statement that charges a refresh's requests (robots_requests: migration 0031), its
 * parameters numbered from `$first`: keyed by the refresh call, its activity attempt and the hop,
 * so that writing one attempt's requests again adds nothing. A data-modifying WITH of the
 * statement that saves the refreshed entry (saveRobotsEntry): no round trip of its own.
 */
export function robotsRequestsInsert(bill: RobotsRequestsBill, first: number): { sql: string; params: unknown[] } {
  const p = (offset: number): string => `$${first + offset}`;
  return {
    sql: `INSERT INTO robots_requests (crawl_id, call_id, attempt, hop, origin, status, sent_bytes, received_bytes)
     SELECT ${p(0)}, ${p(1)}, ${p(2)}, r.hop, ${p(3)}, r.status, r.sent, r.received
     FROM unnest(${p(4)}::int[], ${p(5)}::int[], ${p(6)}::bigint[], ${p(7)}::bigint[]) AS r(hop, status, sent, received)
     ON CONFLICT (crawl_id, call_id, attempt, hop) DO NOTHING`,
    params: [
      bill.crawlId,
      bill.callId,
      bill.attempt,
      bill.origin,
      bill.requests.map((request) => request.hop),
      bill.requests.map((request) => request.status ?? null),
      bill.requests.map((request) => request.sentBytes),
      bill.requests.map((request) => request.receivedBytes),
    ],
  };
}

/** A crawl's robots.txt requests: how many, how many were answered 2xx, 3xx or 304, and their bytes. */
export interface RobotsCostRow {
  requests: number;
  successfulRequests: number;
  sentBytes: number;
  receivedBytes: number;
  /** Bytes of the requests that failed (part of sent + received): below HTTP, 4xx, 5xx. */
  failedTransferBytes: number;
}

/** What a crawl's robots.txt refreshes sent and received (robots_requests). */
export async function robotsCostRow(db: Queryable, crawlId: string): Promise<RobotsCostRow> {
  const { rows } = await db.query<{ requests: string; successful: string; sent: string; received: string; failed_bytes: string }>(
    `SELECT count(*)::bigint AS requests,
            count(*) FILTER (WHERE ok)::bigint AS successful,
            COALESCE(sum(sent_bytes), 0)::bigint AS sent,
            COALESCE(sum(received_bytes), 0)::bigint AS received,
            COALESCE(sum(sent_bytes + received_bytes) FILTER (WHERE NOT ok), 0)::bigint AS failed_bytes
     FROM (SELECT sent_bytes, received_bytes, COALESCE(status BETWEEN 200 AND 399, false) AS ok FROM robots_requests WHERE crawl_id = $1) r`,
    [crawlId],
  );
  const row = rows[0];
  return {
    requests: Number(row?.requests ?? 0),
    successfulRequests: Number(row?.successful ?? 0),
    sentBytes: Number(row?.sent ?? 0),
    receivedBytes: Number(row?.received ?? 0),
    failedTransferBytes: Number(row?.failed_bytes ?? 0),
  };
}
