import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy, type Client, type ScheduleHandle } from '@temporalio/client';
import type { PlanRecrawlResult, RecrawlCycleSummary, RecrawlSettings } from '../../contracts/activities.js';
import type { CrawlCostReport, StalenessReport } from '../../contracts/status.js';
import type { SlaShortfall } from '../../domain/recrawl/index.js';
import { stalenessReport } from '../../storage/postgres/freshness-repository.js';
import { latestRecrawlCycleOf } from '../../storage/postgres/recrawl-repository.js';
import { describeCostReport } from '../cost-lines.js';
import { describeShortfalls, describeStaleness } from '../freshness-lines.js';
import { CRAWL_CONFIG_INTEGER_RANGES, CrawlConfigError, resolveCrawlConfig, type CrawlConfig } from '../../config/crawl-config.js';
import type { RecrawlCycleInput } from '../../workflows/recrawl-cycle-workflow.js';
import { DEFAULT_TASK_QUEUE, recrawlWorkflowId } from '../../contracts/messages.js';
import { changeFieldsOption, costModelOption, dataDirOption, defaultDataDir, integerOption, MAX_TIMER_MS, parseCommandArgs, proxyOption } from '../args.js';
import { CliError } from '../cli-error.js';
import { flagOfConfigField } from '../config-flags.js';
import { connectClient, connectDatabase } from '../client.js';
import { connectServices, temporalUiLink } from '../services.js';

export const scheduleUsage = `usage: crawler schedule create --every DURATION --budget N [--id ID] [--overlap skip|buffer-one]
                              [--task-queue Q] [--value-tiers V,V,...] [--signal-budget N] [--paused]
                              [--user-agent UA] [--min-host-delay-ms MS] [--max-in-flight N] [--max-depth D]
                              [--scope same-host|same-registrable-domain|any] [--allow-private-networks]
                              [--change-field NAME=SELECTOR]... [--listing-page PREFIX]...
                              [--proxy URL]... [--proxy-session-requests N] [--cost-model KIND[:PRICE]]
       crawler schedule list [--json]
       crawler schedule describe|pause|unpause|trigger|delete --id ID [--note TEXT] [--allow-overlap]

Recrawl cycles on a Temporal Schedule. Each action starts a recrawl-cycle workflow that spends at
most N visits on the stored URLs that buy the most freshness (value x freshness gain / cost), with
shares reserved for discovery, re-estimation and verification (docs/storage-and-recrawl.md). A
worker (\`crawler worker\`) on the task queue runs them. DURATION is a number with s, m, h or d
(90s, 15m, 1h, 1d; at least 5s). ID defaults to 'recrawl'.

Before planning, a cycle reads the sitemaps robots.txt declared for the origins it may revisit, at
most --signal-budget fetches (default max(10, N/10); 0 skips it): a trusted sitemap lastmod newer
than our copy gets the page planned, one older than our copy keeps it out of the plan.

Overlap: a cycle still running when the next is due makes that next one be skipped (SKIP, the
default): two cycles at once would plan the same due URLs, and the next cycle plans from fresher
evidence anyway. buffer-one runs one late cycle right after instead. trigger follows the
schedule's policy unless --allow-overlap.

--change-field NAME=SELECTOR (repeatable, e.g. price=.price) makes the cycles detect changes in
those fields' text instead of the whole main text, as \`crawler crawl\` does. Use the fields the
pages were first crawled with: other fields make every page's next visit a baseline.

--listing-page PREFIX (repeatable) names listing pages (category or search pages): the sweep
re-reads them before planning, and an item whose entry changed there is planned, one whose entry
did not (once the origin's listings proved right) is not.

--proxy URL (repeatable) sends the cycles' requests through these proxies, as \`crawler crawl\`
does; the workers that run the cycles hold the credentials (CRAWLER_PROXY_CREDENTIALS or
\`crawler worker --proxy-credentials-file F\`), never the schedule.

--cost-model KIND[:PRICE] is what the cycles' fetches cost: gateway-bytes (per GB through a
proxy gateway, failed requests' bytes too), successful-requests (API credits per successful
request, failures free) or direct-bytes. The plan prices each visit by its unit (bytes on the wire
as measured per host, or one request) and each cycle's summary reports the bill, cost per detected
change and wasted fetches by host and page type (default gateway-bytes with --proxy, else
direct-bytes, no price).`;

const options = {
  ...dataDirOption,
  id: { type: 'string' },
  every: { type: 'string' },
  budget: { type: 'string' },
  overlap: { type: 'string' },
  'task-queue': { type: 'string' },
  'value-tiers': { type: 'string' },
  'signal-budget': { type: 'string' },
  paused: { type: 'boolean' },
  note: { type: 'string' },
  'allow-overlap': { type: 'boolean' },
  json: { type: 'boolean' },
  'user-agent': { type: 'string' },
  'min-host-delay-ms': { type: 'string' },
  'max-in-flight': { type: 'string' },
  'max-depth': { type: 'string' },
  scope: { type: 'string' },
  'allow-private-networks': { type: 'boolean' },
  'change-field': { type: 'string', multiple: true },
  'listing-page': { type: 'string', multiple: true },
  proxy: { type: 'string', multiple: true },
  'proxy-session-requests': { type: 'string' },
  'cost-model': { type: 'string' },
  'tick-interval-ms': { type: 'string' },
} as const;

type Values = ReturnType<typeof parseCommandArgs<typeof options>>['values'];

const DEFAULT_SCHEDULE_ID = 'recrawl';
/** Shortest --every: a cycle plans, sweeps signals and starts a crawl, a few seconds on a small web. */
export const MIN_EVERY_MS = 5_000;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * "10s", "15m", "1h", "1.5d" in milliseconds; at least MIN_EVERY_MS. Seconds serve compressed-time
 * runs (the live freshness benchmark, its e2e test); a cycle still running when the next is due
 * makes that one skip (overlap SKIP), so a short interval never stacks cycles.
 */
export function parseEveryMs(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([smhd])\s*$/.exec(text);
  if (!match) throw new CliError(`--every expects a duration like 15m, 1h or 1d, got '${text}'`, 2);
  const ms = Math.round(Number(match[1]) * UNIT_MS[match[2]!]!);
  if (ms < MIN_EVERY_MS) throw new CliError(`--every must be at least ${MIN_EVERY_MS / 1000}s, got '${text}'`, 2);
  return ms;
}

/** "16,4,1,0.25": the value of each tier, most valuable first (docs/design.md, "Cost per detected change": three or four levels). */
export function parseValueTiers(text: string): number[] {
  const parts = text.split(',').map((part) => part.trim());
  const values = parts.map(Number);
  if (parts.some((part) => part === '') || values.some((value) => !Number.isFinite(value) || value < 0)) {
    throw new CliError(`--value-tiers expects non-negative numbers separated by commas, most valuable first (e.g. 16,4,1,0.25), got '${text}'`, 2);
  }
  return values;
}

export function overlapPolicyOf(text: string | undefined): 'SKIP' | 'BUFFER_ONE' {
  if (text === undefined || text === 'skip') return ScheduleOverlapPolicy.SKIP;
  if (text === 'buffer-one') return ScheduleOverlapPolicy.BUFFER_ONE;
  throw new CliError(`--overlap expects skip or buffer-one, got '${text}'`, 2);
}

export async function scheduleCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, options, scheduleUsage);
  const action = positionals[0];
  if (!action) throw new CliError(`schedule needs an action\n\n${scheduleUsage}`, 2);
  if (!['create', 'list', 'describe', 'pause', 'unpause', 'trigger', 'delete'].includes(action)) {
    throw new CliError(`unknown schedule action '${action}'\n\n${scheduleUsage}`, 2);
  }
  // Validate everything before connecting: bad input starts nothing.
  const createInput = action === 'create' ? buildCreateInput(values) : undefined;
  const id = values.id ?? DEFAULT_SCHEDULE_ID;

  const dataDir = defaultDataDir(values['data-dir']);
  const endpoints = await connectServices({ dataDir, start: false, need: action === 'describe' ? ['temporal', 'postgres'] : ['temporal'] });
  const client = await connectClient(endpoints);
  const say = (line: string): void => void process.stdout.write(`${line}\n`);
  try {
    if (createInput) {
      await createAndDescribe(client, endpoints, createInput, values.every, say);
      return 0;
    }
    if (action === 'list') {
      await listSchedules(client, values.json === true, say);
      return 0;
    }
    const handle = client.schedule.getHandle(id);
    switch (action) {
      case 'describe':
        await describeSchedule(handle, endpoints, id, values.json === true, say);
        return 0;
      case 'pause':
        await handle.pause(values.note ?? 'paused from the crawler CLI');
        break;
      case 'unpause':
        await handle.unpause(values.note ?? 'unpaused from the crawler CLI');
        break;
      case 'trigger': {
        const overlap = values['allow-overlap'] ? ScheduleOverlapPolicy.ALLOW_ALL : (await handle.describe()).policies.overlap;
        await handle.trigger(overlap);
        break;
      }
      case 'delete':
        await handle.delete();
        break;
    }
    say(`${action} sent to schedule ${id}`);
    return 0;
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) throw new CliError(`no schedule '${id}': \`crawler schedule list\` shows them`);
    if (error instanceof ScheduleAlreadyRunning) throw new CliError(`schedule '${id}' exists already: delete it first or choose another --id`);
    throw error;
  } finally {
    await client.connection.close();
  }
}

type Endpoints = Awaited<ReturnType<typeof connectServices>>;
type Say = (line: string) => void;

async function createAndDescribe(client: Client, endpoints: Endpoints, createInput: CreateInput, every: string | undefined, say: Say): Promise<void> {
  await create(client, createInput);
  const description = await client.schedule.getHandle(createInput.id).describe();
  const next = description.info.nextActionTimes[0];
  const link = endpoints.temporal.uiUrl ? `${endpoints.temporal.uiUrl}/namespaces/${encodeURIComponent(endpoints.temporal.namespace)}/schedules/${encodeURIComponent(createInput.id)}` : undefined;
  say(
    `schedule ${createInput.id} created: every ${every}, budget ${createInput.settings.budget} visits per cycle, overlap ${createInput.overlap}` +
      `${createInput.paused ? ', paused' : next ? `; next cycle at ${next.toISOString()}` : ''}${link ? `\n  Temporal UI: ${link}` : ''}`,
  );
}

async function listSchedules(client: Client, json: boolean, say: Say): Promise<void> {
  const rows = [];
  for await (const schedule of client.schedule.list()) {
    rows.push({
      id: schedule.scheduleId,
      workflowType: schedule.action?.workflowType ?? null,
      paused: schedule.state.paused,
      note: schedule.state.note ?? null,
      nextActionTimes: schedule.info.nextActionTimes.map((time) => time.toISOString()),
      recentActions: schedule.info.recentActions.map((recent) => ({ takenAt: recent.takenAt.toISOString(), workflowId: recent.action.workflow.workflowId })),
    });
  }
  if (json) say(JSON.stringify(rows));
  else if (rows.length === 0) say('no schedules');
  else {
    for (const row of rows) {
      say(`${row.id}  ${row.workflowType ?? '-'}  ${row.paused ? 'PAUSED' : 'active'}  next ${row.nextActionTimes[0] ?? '-'}  last ${row.recentActions.at(-1)?.workflowId ?? '-'}`);
    }
  }
}

async function describeSchedule(handle: ScheduleHandle, endpoints: Endpoints, id: string, json: boolean, say: Say): Promise<void> {
  const description = await handle.describe();
  const last = description.info.recentActions.at(-1);
  const freshness = await freshnessOf(endpoints, id);
  const summary = {
    id,
    paused: description.state.paused,
    note: description.state.note ?? null,
    overlap: description.policies.overlap,
    intervals: description.spec.intervals?.map((interval) => interval.every) ?? [],
    actions: description.info.numActionsTaken,
    skippedForOverlap: description.info.numActionsSkippedOverlap,
    running: description.info.runningActions.map((running) => running.workflow.workflowId),
    nextActionTimes: description.info.nextActionTimes.map((time) => time.toISOString()),
    lastCycle: last ? { workflowId: last.action.workflow.workflowId, takenAt: last.takenAt.toISOString() } : null,
    // The last cycle that planned: the SLAs its budget could not keep, and what it cost.
    lastPlanned: freshness.cycle,
    staleness: freshness.staleness,
    args: description.action.args,
  };
  if (json) {
    say(JSON.stringify(summary));
    return;
  }
  const lastLink = last ? temporalUiLink(endpoints, last.action.workflow.workflowId) : undefined;
  const cycle = freshness.cycle;
  say(
    [
      `schedule ${id}: ${summary.paused ? 'PAUSED' : 'active'}${summary.note ? ` (${summary.note})` : ''}, every ${summary.intervals.map((ms) => `${ms} ms`).join(', ')}, overlap ${summary.overlap}`,
      `  cycles started ${summary.actions}, skipped for overlap ${summary.skippedForOverlap}, running ${summary.running.join(', ') || 'none'}`,
      `  next ${summary.nextActionTimes[0] ?? '-'}`,
      `  last ${summary.lastCycle ? `${summary.lastCycle.workflowId} at ${summary.lastCycle.takenAt}${lastLink ? ` (${lastLink})` : ''}` : '-'}`,
      ...(cycle === null
        ? []
        : [
            `  last planned cycle ${cycle.crawlId}: ${cycle.planned} visits${cycle.slaPlanned === null ? '' : `, ${cycle.slaPlanned} for SLAs`}${cycle.slaShortfalls.length === 0 ? (cycle.slaPlanned === null ? '' : ', every due SLA URL planned') : ''}`,
            ...describeShortfalls(cycle.slaShortfalls, '    '),
            ...(cycle.cost === null ? [] : describeCostReport(cycle.cost, '    ')),
          ]),
      ...(freshness.staleness.bySla.length + freshness.staleness.byTier.length > 0 ? ['  staleness now (now - last successful fetch):', ...describeStaleness(freshness.staleness, '    ')] : []),
    ].join('\n'),
  );
}

/** What Postgres says of a Schedule's cycles: the last one planned, and staleness now. */
async function freshnessOf(
  endpoints: Endpoints,
  scheduleId: string,
): Promise<{
  cycle: { crawlId: string; planned: number; slaPlanned: number | null; slaShortfalls: SlaShortfall[]; cost: CrawlCostReport | null } | null;
  staleness: StalenessReport;
}> {
  const pool = await connectDatabase(endpoints);
  try {
    const [cycle, staleness] = await Promise.all([latestRecrawlCycleOf(pool, scheduleId), stalenessReport(pool, Date.now())]);
    const plan = cycle?.plan as unknown as PlanRecrawlResult | undefined;
    const summary = cycle?.summary as unknown as RecrawlCycleSummary | null | undefined;
    return {
      cycle:
        cycle === undefined || plan === undefined
          ? null
          : { crawlId: cycle.crawlId, planned: plan.planned.total, slaPlanned: plan.sla?.planned ?? null, slaShortfalls: plan.sla?.shortfalls ?? [], cost: summary?.cost ?? null },
      staleness,
    };
  } finally {
    await pool.end();
  }
}

export interface CreateInput {
  id: string;
  everyMs: number;
  overlap: 'SKIP' | 'BUFFER_ONE';
  paused: boolean;
  taskQueue: string;
  settings: RecrawlSettings;
  config: CrawlConfig;
  tickIntervalMs?: number;
}

export function buildCreateInput(values: Values): CreateInput {
  if (values.every === undefined) throw new CliError(`schedule create needs --every DURATION\n\n${scheduleUsage}`, 2);
  if (values.budget === undefined) throw new CliError(`schedule create needs --budget N (visits per cycle)\n\n${scheduleUsage}`, 2);
  const everyMs = parseEveryMs(values.every);
  const budget = integerOption('budget', values.budget, 1)!;
  const ranges = CRAWL_CONFIG_INTEGER_RANGES;
  const scope = values.scope;
  const changeFields = changeFieldsOption(values['change-field']);
  const proxy = proxyOption(values.proxy, values['proxy-session-requests']);
  const costModel = costModelOption(values['cost-model']);
  let config: CrawlConfig;
  try {
    config = resolveCrawlConfig({
      ...(values['min-host-delay-ms'] !== undefined ? { minHostDelayMs: integerOption('min-host-delay-ms', values['min-host-delay-ms'], ranges.minHostDelayMs.min, ranges.minHostDelayMs.max)! } : {}),
      ...(values['max-in-flight'] !== undefined ? { maxInFlight: integerOption('max-in-flight', values['max-in-flight'], ranges.maxInFlight.min, ranges.maxInFlight.max)! } : {}),
      ...(values['max-depth'] !== undefined ? { maxDepth: integerOption('max-depth', values['max-depth'], ranges.maxDepth.min, ranges.maxDepth.max)! } : {}),
      ...(values['user-agent'] !== undefined ? { userAgent: values['user-agent'] } : {}),
      ...(values['allow-private-networks'] ? { allowPrivateNetworks: true } : {}),
      ...(scope !== undefined ? { scope: { mode: scope as CrawlConfig['scope']['mode'], allowPrefixes: [], denyPrefixes: [] } } : {}),
      ...(changeFields !== undefined ? { changeFields } : {}),
      ...(values['listing-page'] !== undefined ? { listingPages: values['listing-page'] } : {}),
      ...(proxy !== undefined ? { proxy: proxy as CrawlConfig['proxy'] } : {}),
      ...(costModel !== undefined ? { costModel } : {}),
    });
  } catch (error) {
    if (error instanceof CrawlConfigError) throw new CliError(`invalid option ${flagOfConfigField(error.field)}: ${error.message}`, 2);
    throw error;
  }
  const tickIntervalMs = integerOption('tick-interval-ms', values['tick-interval-ms'], 100, MAX_TIMER_MS);
  return {
    id: values.id ?? DEFAULT_SCHEDULE_ID,
    everyMs,
    overlap: overlapPolicyOf(values.overlap),
    paused: values.paused === true,
    taskQueue: values['task-queue'] ?? DEFAULT_TASK_QUEUE,
    settings: {
      budget,
      everyMs,
      ...(values['value-tiers'] !== undefined ? { valueTiers: parseValueTiers(values['value-tiers']) } : {}),
      ...(values['signal-budget'] !== undefined ? { signalBudget: integerOption('signal-budget', values['signal-budget'], 0)! } : {}),
    },
    config,
    ...(tickIntervalMs === undefined ? {} : { tickIntervalMs }),
  };
}

async function create(client: Client, input: CreateInput): Promise<void> {
  const cycle: RecrawlCycleInput = {
    scheduleId: input.id,
    settings: input.settings,
    config: input.config,
    taskQueue: input.taskQueue,
    ...(input.tickIntervalMs === undefined ? {} : { crawlOptions: { tickIntervalMs: input.tickIntervalMs } }),
  };
  await client.schedule.create({
    scheduleId: input.id,
    spec: { intervals: [{ every: input.everyMs }] },
    action: {
      type: 'startWorkflow',
      workflowType: 'recrawlCycleWorkflow',
      workflowId: recrawlWorkflowId(input.id),
      taskQueue: input.taskQueue,
      args: [cycle],
      staticSummary: `Recrawl cycle of schedule ${input.id}: budget ${input.settings.budget} visits`,
    },
    policies: {
      overlap: input.overlap,
      // A cycle missed while the server was down is not worth running late: the next one plans afresh.
      // (The server holds every catch-up window to at least 10 s.)
      catchupWindow: Math.max(10_000, Math.min(input.everyMs, 3_600_000)),
    },
    state: { paused: input.paused, ...(input.paused ? { note: 'created paused from the crawler CLI' } : {}) },
  });
}
