import { redactCredentials } from '../../domain/url/index.js';
import { discoveryBySource, errorsByType, frontierCounts, getCrawl, listCrawls } from '../../storage/postgres/crawl-repository.js';
import { describeDiscovery } from '../../contracts/describe-crawl-end.js';
import { crawlWaits } from '../../storage/postgres/crawl-waits-repository.js';
import { describeCrawlWaits, describeRenders } from '../../contracts/describe-waits.js';
import { crawlRenderStatus } from '../../services/rendering/render-status.js';
import { readSeenStats, readTrapReport } from '../../storage/postgres/url-scope-repository.js';
import { crawlStatusQuery, crawlWorkflowId } from '../../contracts/messages.js';
import { describeHostStatus, hostStatusReport } from '../host-status.js';
import { dataDirOption, defaultDataDir, parseCommandArgs } from '../args.js';
import { CliError } from '../cli-error.js';
import { connectClient, connectDatabase } from '../client.js';
import { connectServices, temporalUiLink } from '../services.js';
import { crawlCostReport } from '../../services/costs/crawl-cost-report.js';
import { describeCostReport } from '../cost-lines.js';
import { describeStaleness } from '../freshness-lines.js';
import { stalenessReport } from '../../storage/postgres/freshness-repository.js';
import type { Client } from '@temporalio/client';
import type { Pool } from '../../storage/postgres/pool.js';
import type { StackEndpoints } from '../../stack/index.js';

export const statusUsage = `usage: crawler status [--crawl ID | --host HOST] [--json] [--data-dir DIR]

Without options: recent crawls, and staleness (now - last successful fetch: p50, p95, max) per
freshness SLA against its promise and per value tier (as JSON: \`crawler sla list --json\`). With
--crawl: the frontier by tier, in flight, admission and backpressure, errors by type (live from the
running workflow, else from Postgres), the URLs found and pages fetched by how they were found
(links, sitemaps, feeds, redirects, seeds), the seen test
(Bloom negatives, positives confirmed in Postgres, false positives), refused URLs by reason and
the hosts with demoted or dropped URLs (crawler traps), and what the crawl cost under its cost
model: bytes on the wire (failed requests' too) or successful requests, cost per detected change,
wasted fetches, and the hosts and page types that cost the most. With --host:
the host's back queue, next fetch time and politeness state, from its workflow; when the
workflow does not answer within 3 s (a burst holds its task open), what Postgres holds of it.`;

export async function statusCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(argv, { ...dataDirOption, crawl: { type: 'string' }, host: { type: 'string' }, json: { type: 'boolean' } }, statusUsage);
  const dataDir = defaultDataDir(values['data-dir']);
  const endpoints = await connectServices({ dataDir, start: false, need: ['temporal', 'postgres'] });
  const client = await connectClient(endpoints);
  const pool = await connectDatabase(endpoints);
  const print = (value: unknown, text: string): void => void process.stdout.write(values.json ? `${JSON.stringify(value)}\n` : `${text}\n`);
  try {
    if (values.host) {
      const report = await hostStatusReport(client, pool, values.host);
      print(report, describeHostStatus(report));
      return 0;
    }
    if (values.crawl) {
      await printCrawlStatus(client, pool, endpoints, values.crawl, print);
      return 0;
    }
    await printCrawlList(pool, print);
    return 0;
  } finally {
    await pool.end();
    await client.connection.close();
  }
}

type Print = (value: unknown, text: string) => void;

/** One crawl: its live status when its workflow answers, else what Postgres holds, with its costs, traps and waits. */
async function printCrawlStatus(client: Client, pool: Pool, endpoints: StackEndpoints, crawlId: string, print: Print): Promise<void> {
  const crawl = await getCrawl(pool, crawlId);
  if (!crawl) throw new CliError(`no crawl '${crawlId}' in ${redactCredentials(endpoints.postgres.url)}; \`crawler status\` lists them`);
  let live;
  try {
    live = await client.workflow.getHandle(crawlWorkflowId(crawlId)).query(crawlStatusQuery);
  } catch {
    live = undefined;
  }
  const { maxPages, accountedInFlight: _accounted, ...counts } = await frontierCounts(pool, crawlId);
  const [errors, waits] = await Promise.all([errorsByType(pool, crawlId), crawlWaits(pool, crawlId)]);
  const [seenTest, traps, discovery, cost] = await Promise.all([
    readSeenStats(pool, crawlId),
    readTrapReport(pool, crawlId),
    discoveryBySource(pool, crawlId),
    crawlCostReport(pool, crawlId, crawl.config),
  ]);
  const renders = live?.renders ?? (await crawlRenderStatus({ pool, temporal: client, now: Date.now }, crawlId, crawl.config, undefined));
  const link = temporalUiLink(endpoints, crawlWorkflowId(crawlId));
  const figures = {
    crawlId: crawl.id,
    state: live?.state ?? crawl.state,
    counts: live?.counts ?? counts,
    admission: live?.admission ?? { maxInFlight: crawl.maxInFlight, admitFactor: crawl.admitFactor, backlogSeconds: 0, reason: 'not running' },
    activeHosts: live?.activeHosts ?? 0,
    errorsByType: errors,
    waits,
    renders: renders ?? null,
    maxPages,
    discovery,
    seenTest,
    rejections: traps.rejections,
    trapHosts: traps.hosts,
    cost,
    temporalUi: link ?? null,
  };
  const c = figures.counts;
  print(figures, [
    `crawl ${crawl.id}: ${figures.state}`,
    `  fetched ${c.fetched} of max ${maxPages}; discovered ${c.discovered}; admitted ${c.admitted}`,
    `  found by: ${describeDiscovery(discovery)}`,
    `  queued ${c.queued} by tier [${c.queuedByTier.join(', ')}]; in flight ${c.inFlight}; hosts active ${figures.activeHosts}`,
    `  done ${c.done}, failed ${c.failed}, dead-lettered ${c.dead}, dropped ${c.dropped}`,
    `  admission: max in flight ${figures.admission.maxInFlight}, factor ${figures.admission.admitFactor.toFixed(2)}, parse backlog ${figures.admission.backlogSeconds.toFixed(1)} s (${figures.admission.reason})${figures.admission.hostClaimCap !== undefined ? `, at most ${figures.admission.hostClaimCap} URLs per host claim` : ''}`,
    `  errors: ${Object.entries(errors).map(([type, n]) => `${type} ${n}`).join(', ') || 'none'}`,
    ...(renders ? [`  renders: ${describeRenders(renders)}`] : []),
    ...describeCrawlWaits(waits).map((wait) => `  waiting: ${wait}`),
    ...(waits.storage.failures > 0 && waits.storage.failingSinceMs === null
      ? [`  storage: ${waits.storage.failures} failed tries to store a body, all stored since (last failure ${new Date(waits.storage.lastFailureAtMs ?? 0).toISOString()}: ${waits.storage.lastError ?? ''})`]
      : []),
    `  seen test: ${seenTest.checked} checked; Bloom negatives ${seenTest.negatives}, positives ${seenTest.positives} (confirmed in Postgres), false positives ${seenTest.falsePositives}${seenTest.unfiltered > 0 ? `, unfiltered ${seenTest.unfiltered}` : ''}${seenTest.filterFillRatio !== null ? `; filter ${(seenTest.filterFillRatio * 100).toFixed(1)}% full` : ''}`,
    `  refused: ${Object.entries(traps.rejections).map(([reason, n]) => `${reason} ${n}`).join(', ') || 'none'}`,
    ...traps.hosts.map((host) => `  trap host ${host.host}: ${host.urls} URLs registered, ${host.demoted} demoted, ${host.dropped} dropped`),
    ...describeCostReport(cost),
    ...(link ? [`  Temporal UI: ${link}`] : []),
  ].join('\n'));
}

/** The latest crawls, one line each, and staleness against the freshness SLAs. */
async function printCrawlList(pool: Pool, print: Print): Promise<void> {
  const crawls = await listCrawls(pool, 20);
  const rows = await Promise.all(crawls.map(async (crawl) => ({ crawl, counts: await frontierCounts(pool, crawl.id) })));
  const staleness = await stalenessReport(pool, Date.now());
  const freshnessLines = staleness.bySla.length + staleness.byTier.length > 0 ? ['freshness (now - last successful fetch):', ...describeStaleness(staleness)] : [];
  print(
    rows.map(({ crawl, counts }) => ({ crawlId: crawl.id, state: crawl.state, createdAt: crawl.createdAt, counts })),
    [
      ...(rows.length === 0
        ? ['no crawls yet: start one with `crawler crawl URL`']
        : rows.map(({ crawl, counts }) => `${crawl.id.padEnd(28)} ${crawl.state.padEnd(9)} fetched ${String(counts.fetched).padStart(6)}  queued ${String(counts.queued).padStart(6)}  in flight ${String(counts.inFlight).padStart(4)}  ${crawl.createdAt.toISOString()}`)),
      ...freshnessLines,
    ].join('\n'),
  );
}
