/**
 * Settling a URL's outcome in the store: the frontier row's state, the attempts and dead letters of
 * a failure, a failed render's row, and the stored links a 304 page registers again in a discovery
 * crawl. What the host workflow's settleUrl activity does.
 */
import { FAILURE_POLICIES, POISON_ATTEMPT_LIMIT, countsTowardPoison, type FetchFailureType } from '../../domain/failures/index.js';
import { attemptsSinceLastSuccess, moveToDeadLetters, recordAttempt } from '../../storage/postgres/attempt-repository.js';
import { DEFERRED_OUTCOME_PREFIX } from '../../storage/postgres/crawl-repository.js';
import { getFetch, recordFetch, updateUrlAfterFetch } from '../../storage/postgres/fetch-repository.js';
import { frontierDepthOf } from '../../storage/postgres/frontier-depths.js';
import { settleFrontierEntry, type FrontierState } from '../../storage/postgres/frontier-settlement.js';
import { inTransaction, type PoolClient } from '../../storage/postgres/pool.js';
import { finishRender } from '../../storage/postgres/render-repository.js';
import type { SettleUrlInput, SettleUrlResult } from '../../contracts/activities.js';
import type { ActivityDeps } from '../deps.js';
import type { CrawlContextCache } from './crawl-context.js';
import { registerStoredLinks } from './depth-relaxation.js';

type FailedOutcome = Extract<SettleUrlInput['outcome'], { kind: 'failed' }>;
type RenderFailedOutcome = Extract<SettleUrlInput['outcome'], { kind: 'render-failed' }>;

export async function settleUrl(deps: ActivityDeps, crawls: CrawlContextCache, input: SettleUrlInput): Promise<SettleUrlResult> {
  const outcome = input.outcome;
  const base = { crawlId: input.crawlId, fingerprint: input.fingerprint, generation: input.generation };
  switch (outcome.kind) {
    case 'not-modified':
      await settleNotModified(deps, crawls, input);
      return { deadLettered: false };
    case 'redirect':
      await settleFrontierEntry(deps.pool, { ...base, state: 'done', outcome: 'redirect' });
      return { deadLettered: false };
    case 'fetched-unparsed':
      await settleFrontierEntry(deps.pool, { ...base, state: 'done', outcome: 'ok' });
      return { deadLettered: false };
    case 'robots-disallowed':
      await settleFrontierEntry(deps.pool, { ...base, state: 'dropped', outcome: 'robots-disallowed' });
      return { deadLettered: false };
    case 'returned':
      await settleFrontierEntry(deps.pool, { ...base, state: 'queued', outcome: outcome.reason });
      return { deadLettered: false };
    case 'dropped':
      await settleFrontierEntry(deps.pool, { ...base, state: 'dropped', outcome: outcome.reason });
      return { deadLettered: false };
    case 'deferred':
      // Out of this crawl, never fetched: a later crawl or recrawl cycle registers it again.
      await settleFrontierEntry(deps.pool, { ...base, state: 'dropped', outcome: `${DEFERRED_OUTCOME_PREFIX}${outcome.reason}` });
      return { deadLettered: false };
    case 'failed':
      return settleFailure(deps, input, outcome);
    case 'rendered':
      // Its renders are recorded with them; the page is done with what its HTTP fetch and renders found.
      await settleFrontierEntry(deps.pool, { ...base, state: 'done', outcome: 'ok' });
      return { deadLettered: false };
    case 'render-failed':
      return settleRenderFailure(deps, input, outcome);
  }
}

/**
 * A render that failed for good: its row says why (RenderCrashed after its attempts goes to the
 * dead letters at the render stage, with the URL), and the page keeps its HTTP result.
 */
async function settleRenderFailure(deps: ActivityDeps, input: SettleUrlInput, outcome: RenderFailedOutcome): Promise<SettleUrlResult> {
  const dead = outcome.failureType === 'RenderCrashed';
  return inTransaction(deps.pool, async (client) => {
    const key = { crawlId: input.crawlId, fingerprint: input.fingerprint, generation: input.generation, routeKey: outcome.routeKey };
    const changed = await finishRender(client, key, {
      state: dead ? 'dead' : 'failed',
      failureType: outcome.failureType,
      message: outcome.message,
      attempts: outcome.attempts,
      cpuMs: 0,
      peakPssBytes: 0,
      durationMs: 0,
      subresources: 0,
      startedAtMs: deps.now(),
    });
    if (dead && changed) {
      await moveToDeadLetters(client, {
        fingerprint: input.fingerprint,
        stage: 'render',
        crawlId: input.crawlId,
        url: input.url + outcome.routeKey,
        failureType: outcome.failureType,
        attempts: outcome.attempts,
        history: [{ stage: 'render', failureType: outcome.failureType, atMs: deps.now(), detail: outcome.message.slice(0, 500) }],
      });
    }
    if (outcome.settlesPage) await settleFrontierEntry(client, { crawlId: input.crawlId, fingerprint: input.fingerprint, generation: input.generation, state: 'done', outcome: 'ok' });
    return { deadLettered: dead && changed };
  });
}

/**
 * A page unchanged since an earlier crawl parsed it (a 304): a discovery crawl registers the
 * links stored for it then, as its parse would have, in the transaction that settles it; else a
 * second `crawler crawl` of a site that answers conditional requests ended at its seeds. Recrawl
 * cycles and signal sweeps visit what they planned: a 304 registers nothing there.
 */
async function settleNotModified(deps: ActivityDeps, crawls: CrawlContextCache, input: SettleUrlInput): Promise<void> {
  const settlement = { crawlId: input.crawlId, fingerprint: input.fingerprint, generation: input.generation, state: 'done', outcome: 'not-modified' } as const;
  const context = await crawls.get(input.crawlId);
  if (context.record.kind !== 'discovery') {
    await settleFrontierEntry(deps.pool, settlement);
    return;
  }
  await inTransaction(deps.pool, async (client) => {
    // Settled already (a retry after the commit): its links were registered with it.
    if (!(await settleFrontierEntry(client, settlement))) return;
    const depth = await frontierDepthOf(client, input.crawlId, input.fingerprint);
    if (depth !== undefined) await registerStoredLinks(client, context, { fingerprint: input.fingerprint, depth }, deps.now());
  });
}

async function settleFailure(deps: ActivityDeps, input: SettleUrlInput, outcome: FailedOutcome): Promise<SettleUrlResult> {
  const policy = FAILURE_POLICIES[outcome.failureType as FetchFailureType];
  return inTransaction(deps.pool, async (client) => {
    // The workflow's own verdict counts as an attempt too (parse failures, host holds, timeouts
    // of the activity itself); a failure the fetch activity reported is already recorded.
    if (outcome.recorded !== true) {
      await recordAttempt(client, {
        fingerprint: input.fingerprint,
        stage: outcome.stage,
        attemptKey: `${input.generation}/${outcome.attempts}/settled`,
        crawlId: input.crawlId,
        failureType: outcome.failureType,
        message: outcome.message,
      });
    }
    // Counted per fingerprint and stage since the last success, across crawls (docs/design.md, "Poison URLs").
    const history = await attemptsSinceLastSuccess(client, input.fingerprint, outcome.stage);
    const counted = history.filter((attempt) => countsTowardPoison(attempt.failureType)).length;
    const poisonable = policy ? policy.countsTowardPoison : true;
    const dead = poisonable && Math.max(counted, outcome.attempts) >= POISON_ATTEMPT_LIMIT;
    const state: FrontierState = dead ? 'dead' : 'failed';
    const changed = await settleFrontierEntry(client, {
      crawlId: input.crawlId,
      fingerprint: input.fingerprint,
      generation: input.generation,
      state,
      outcome: outcome.failureType,
      attempts: Math.max(history.length, outcome.attempts),
    });
    if (dead && changed) {
      await moveToDeadLetters(client, {
        fingerprint: input.fingerprint,
        stage: outcome.stage,
        crawlId: input.crawlId,
        url: input.url,
        failureType: outcome.failureType,
        attempts: Math.max(counted, outcome.attempts),
        history,
      });
    }
    if (outcome.stage === 'fetch') await recordFailedFetch(client, deps.now(), input, outcome, dead);
    return { deadLettered: dead && changed };
  });
}

/**
 * A fetch that failed before it recorded anything (the workflow's verdict): its fetch record, its
 * URL's state, and for a URL gone for good a tombstone. A retry finds the record and adds nothing.
 */
async function recordFailedFetch(client: PoolClient, nowMs: number, input: SettleUrlInput, outcome: FailedOutcome, dead: boolean): Promise<void> {
  if (await getFetch(client, input.fingerprint, input.generation)) return;
  const policy = FAILURE_POLICIES[outcome.failureType as FetchFailureType];
  await recordFetch(client, {
    fingerprint: input.fingerprint,
    generation: input.generation,
    crawlId: input.crawlId,
    url: input.url,
    finalUrl: input.url,
    fetchedAt: new Date(nowMs),
    status: outcome.status ?? null,
    outcome: outcome.failureType,
    contentType: null,
    headers: {},
    rawHash: null,
    bodyKey: null,
    bytes: null,
    wireBytes: null,
    timings: {},
    redirectLocation: null,
  });
  const gone = outcome.failureType === 'NotFound';
  await updateUrlAfterFetch(client, {
    fingerprint: input.fingerprint,
    state: gone ? 'gone' : dead ? 'dead' : 'failed',
    status: outcome.status ?? null,
    fetchedAt: new Date(nowMs),
    success: false,
  });
  if (policy?.recheckAfterMs !== undefined && gone) {
    // A tombstone: checked again on a long interval rather than retried (docs/design.md, "Failure types and retries" and "Recrawl").
    await client.query('UPDATE urls SET next_fetch_at = to_timestamp($2 / 1000.0) WHERE fingerprint = $1', [
      Buffer.from(input.fingerprint, 'hex'),
      nowMs + policy.recheckAfterMs,
    ]);
  }
}
