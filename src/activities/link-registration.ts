/**
 * From discovered link to frontier entry (000 §3, steps 1-3): resolve, canonicalize, scope,
 * trap assessment, priority, then atomic registration. Used by the parser for links and by the
 * fetcher for redirect targets, so both follow the same rules.
 */
import { tierOf, urlPriority } from '../domain/frontier/index.js';
import {
  assessTrap,
  checkScope,
  tryCanonicalizeUrl,
  urlFingerprint,
  type CanonicalUrl,
  type TrapAssessment,
} from '../domain/url/index.js';
import { registerFrontierEntries, fingerprintToBytes, type NewFrontierEntry } from '../storage/postgres/frontier-repository.js';
import { recordLinks, type LinkEdge } from '../storage/postgres/document-repository.js';
import type { PoolClient } from '../storage/postgres/pool.js';
import type { CrawlContext } from './crawl-context.js';

export function priorityOfDiscovery(signals: { depth: number; trapPenalty: number; inlinks?: number }): { priority: number; tier: number } {
  const priority = urlPriority({ depth: signals.depth, inlinks: signals.inlinks ?? 0, trapPenalty: signals.trapPenalty });
  return { priority, tier: tierOf(priority) };
}

export interface DiscoveredUrl {
  /** Absolute URL (already resolved against its base). */
  absoluteUrl: string;
  anchorText?: string;
  rel?: string;
}

export interface RegistrationInput {
  sourceFingerprint: string;
  /** Depth of the URLs being registered (source depth + 1 for links, the same for redirects). */
  depth: number;
  urls: DiscoveredUrl[];
  kind: 'link' | 'redirect';
  /** For redirect targets: hops so far and the chain of fingerprints already visited. */
  redirect?: { hops: number; chain: string[] };
  nowMs: number;
}

export interface RegistrationResult {
  registered: number;
  /** Edges recorded (link graph). */
  edges: number;
  rejected: { url: string; reason: string }[];
}

/** Most rejections per call written to crawl_rejections, so a trap page cannot flood the table. */
const MAX_RECORDED_REJECTIONS = 200;

/** Runs inside the caller's transaction. */
export async function registerDiscoveredUrls(client: PoolClient, context: CrawlContext, input: RegistrationInput): Promise<RegistrationResult> {
  const config = context.record.config;
  const crawlId = context.record.id;
  const rejected: RegistrationResult['rejected'] = [];
  const candidates: { url: CanonicalUrl; fingerprint: string; source: DiscoveredUrl }[] = [];
  const seen = new Set<string>();
  for (const discovered of input.urls) {
    const canonical = tryCanonicalizeUrl(discovered.absoluteUrl, context.canonicalizeOptions);
    if (!canonical.ok) {
      rejected.push({ url: canonical.error.redactedInput, reason: canonical.error.code });
      continue;
    }
    const fingerprint = urlFingerprint(canonical.value.url);
    if (seen.has(fingerprint)) continue;
    seen.add(fingerprint);
    candidates.push({ url: canonical.value, fingerprint, source: discovered });
  }

  const edges: LinkEdge[] = candidates.map((candidate) => ({
    source: input.sourceFingerprint,
    target: candidate.fingerprint,
    anchorText: candidate.source.anchorText,
    rel: candidate.source.rel,
    kind: input.kind,
  }));
  await recordLinks(client, crawlId, edges);

  const inScope = candidates.filter((candidate) => {
    const scope = checkScope(candidate.url, context.seedHosts, { ...config.scope });
    if (!scope.inScope) rejected.push({ url: candidate.url.url, reason: `out-of-scope: ${scope.reason}` });
    return scope.inScope;
  });
  if (input.depth > config.maxDepth) {
    for (const candidate of inScope) rejected.push({ url: candidate.url.url, reason: `depth ${input.depth} > maxDepth ${config.maxDepth}` });
    await recordRejections(client, crawlId, rejected);
    return { registered: 0, edges: edges.length, rejected };
  }

  const stats = await growthStats(client, crawlId, inScope.map((candidate) => candidate.url));
  const entries: NewFrontierEntry[] = [];
  const drops: { fingerprint: string; url: string; assessment: TrapAssessment }[] = [];
  for (const candidate of inScope) {
    const pathKey = pathKeyOf(candidate.url);
    const assessment = assessTrap(candidate.url, {
      depth: input.depth,
      nowMs: input.nowMs,
      hostUrlCount: stats.hostUrls.get(candidate.url.host) ?? 0,
      pathVariantCount: stats.pathVariants.get(pathKey) ?? 0,
    });
    if (assessment.action === 'drop') {
      drops.push({ fingerprint: candidate.fingerprint, url: candidate.url.url, assessment });
      continue;
    }
    const { priority, tier } = priorityOfDiscovery({ depth: input.depth, trapPenalty: assessment.priorityPenalty });
    entries.push({
      fingerprint: candidate.fingerprint,
      url: candidate.url.url,
      host: candidate.url.host,
      origin: candidate.url.origin,
      canonicalizationVersion: candidate.url.version,
      depth: input.depth,
      priority,
      tier,
      discoveredFrom: input.sourceFingerprint,
      anchorText: candidate.source.anchorText?.slice(0, 500),
      redirectHops: input.redirect?.hops ?? 0,
      redirectChain: input.redirect?.chain ?? [],
      demotion: assessment.action === 'demote' ? assessment.reasons : undefined,
    });
    // Growth seen within this page counts too: a page of 500 calendar links trips the limits.
    stats.hostUrls.set(candidate.url.host, (stats.hostUrls.get(candidate.url.host) ?? 0) + 1);
    stats.pathVariants.set(pathKey, (stats.pathVariants.get(pathKey) ?? 0) + 1);
  }

  // Redirect targets were asked for by a URL already admitted; they do not spend the discovery budget.
  const fresh = await registerFrontierEntries(client, crawlId, entries, { respectDiscoveryBudget: input.kind === 'link' });
  const freshSet = new Set(fresh);
  const registeredEntries = entries.filter((entry) => freshSet.has(entry.fingerprint));
  await updateGrowthStats(client, crawlId, registeredEntries, drops.length > 0 ? drops : []);
  for (const drop of drops) {
    rejected.push({ url: drop.url, reason: `trap: ${drop.assessment.reasons.map((reason) => reason.code).join(',')}` });
  }
  await recordRejections(
    client,
    crawlId,
    drops.map((drop) => ({ url: drop.url, reason: `trap: ${drop.assessment.reasons.map((reason) => `${reason.code} (${reason.detail})`).join('; ')}` })),
  );
  return { registered: fresh.length, edges: edges.length, rejected };
}

/** Query variants are counted per path: '/calendar' with a thousand '?month=' values is one path. */
function pathKeyOf(url: CanonicalUrl): string {
  const path = url.pathAndQuery.split('?')[0] ?? '/';
  return `${url.host}${path}`;
}

async function growthStats(client: PoolClient, crawlId: string, urls: CanonicalUrl[]) {
  const hosts = [...new Set(urls.map((url) => url.host))];
  const paths = [...new Set(urls.map(pathKeyOf))];
  const [hostRows, pathRows] = await Promise.all([
    client.query<{ host: string; urls: number }>('SELECT host, urls FROM crawl_host_stats WHERE crawl_id = $1 AND host = ANY($2)', [crawlId, hosts]),
    client.query<{ key: string; variants: number }>(
      `SELECT host || path AS key, variants FROM crawl_path_stats WHERE crawl_id = $1 AND host || path = ANY($2)`,
      [crawlId, paths],
    ),
  ]);
  return {
    hostUrls: new Map(hostRows.rows.map((row) => [row.host, row.urls])),
    pathVariants: new Map(pathRows.rows.map((row) => [row.key, row.variants])),
  };
}

async function updateGrowthStats(
  client: PoolClient,
  crawlId: string,
  registered: NewFrontierEntry[],
  drops: { url: string; fingerprint: string }[],
): Promise<void> {
  const byHost = new Map<string, { urls: number; demoted: number; dropped: number }>();
  const byPath = new Map<string, { host: string; path: string; n: number }>();
  for (const entry of registered) {
    const host = byHost.get(entry.host) ?? { urls: 0, demoted: 0, dropped: 0 };
    host.urls += 1;
    if (entry.demotion !== undefined) host.demoted += 1;
    byHost.set(entry.host, host);
    const path = new URL(entry.url).pathname;
    const key = `${entry.host}${path}`;
    const stat = byPath.get(key) ?? { host: entry.host, path, n: 0 };
    stat.n += 1;
    byPath.set(key, stat);
  }
  for (const drop of drops) {
    const hostName = new URL(drop.url).hostname.replace(/^\[|\]$/g, '');
    const host = byHost.get(hostName) ?? { urls: 0, demoted: 0, dropped: 0 };
    host.dropped += 1;
    byHost.set(hostName, host);
  }
  if (byHost.size > 0) {
    const hosts = [...byHost.entries()];
    await client.query(
      `INSERT INTO crawl_host_stats (crawl_id, host, urls, demoted, dropped)
       SELECT $1, h, u, d, x FROM unnest($2::text[], $3::int[], $4::int[], $5::int[]) AS s(h, u, d, x)
       ON CONFLICT (crawl_id, host) DO UPDATE SET urls = crawl_host_stats.urls + EXCLUDED.urls,
         demoted = crawl_host_stats.demoted + EXCLUDED.demoted, dropped = crawl_host_stats.dropped + EXCLUDED.dropped`,
      [crawlId, hosts.map(([host]) => host), hosts.map(([, s]) => s.urls), hosts.map(([, s]) => s.demoted), hosts.map(([, s]) => s.dropped)],
    );
  }
  if (byPath.size > 0) {
    const paths = [...byPath.values()];
    await client.query(
      `INSERT INTO crawl_path_stats (crawl_id, host, path, variants)
       SELECT $1, h, p, n FROM unnest($2::text[], $3::text[], $4::int[]) AS s(h, p, n)
       ON CONFLICT (crawl_id, host, path) DO UPDATE SET variants = crawl_path_stats.variants + EXCLUDED.variants`,
      [crawlId, paths.map((p) => p.host), paths.map((p) => p.path), paths.map((p) => p.n)],
    );
  }
}

async function recordRejections(client: PoolClient, crawlId: string, rejections: { url: string; reason: string }[]): Promise<void> {
  const limited = rejections.slice(0, MAX_RECORDED_REJECTIONS);
  if (limited.length === 0) return;
  await client.query(
    `INSERT INTO crawl_rejections (crawl_id, fingerprint, url, reason)
     SELECT $1, f, u, r FROM unnest($2::bytea[], $3::text[], $4::text[]) AS s(f, u, r)
     ON CONFLICT (crawl_id, fingerprint) DO NOTHING`,
    [
      crawlId,
      limited.map((rejection) => fingerprintToBytes(urlFingerprint(rejection.url))),
      limited.map((rejection) => rejection.url),
      limited.map((rejection) => rejection.reason.slice(0, 500)),
    ],
  );
}
