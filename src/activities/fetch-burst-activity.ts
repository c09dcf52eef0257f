/**
 * A fetch burst: a few URLs of one host fetched in sequence by one activity, each body parsed
 * while the next request's delay runs. For hosts with short delays this pays the activity, timer
 * and workflow tasks of the one-URL path once per burst instead of once per URL.
 *
 * Politeness is the workflow's arithmetic, run here: a request starts only when canStartFetch
 * allows, and every outcome goes through applyHostOutcome; the final state goes back to the host
 * workflow. Failures come back as outcomes, not thrown: the workflow applies their typed policy.
 * A retried burst (a crashed worker) starts after the retry interval, which is longer than any
 * wait a burst makes, and finds its finished URLs answered from their fetch records.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { msToNumber } from '@temporalio/common';
import {
  applyHostOutcome,
  burstWaitMs,
  hostOutcomeOfFailure,
  hostOutcomeOfResult,
  onFetchStarted,
  type HostOutcome,
  type HostPolitenessState,
} from '../domain/politeness/index.js';
import type { FetchBurstInput, FetchBurstOutcome, FetchBurstResult, FetchFailureDetails, FetchUrlInput, FetchUrlResult, ParseDocumentInput } from './contracts.js';
import type { ActivityDeps } from './deps.js';
import type { UrlFetcher } from './fetch-activity.js';

/** A burst's try of a URL is its first under the failure type's policy. */
const BURST_ATTEMPT_NUMBER = 1;

export function createFetchBurstActivities(deps: ActivityDeps, fetchUrlAttempt: UrlFetcher, parseDocument: (input: ParseDocumentInput) => Promise<unknown>) {
  async function fetchBurst(input: FetchBurstInput): Promise<FetchBurstResult> {
    const context = Context.current();
    let politeness: HostPolitenessState = input.politeness;
    let requestsStarted = 0;
    const outcomes: FetchBurstOutcome[] = [];
    // One parse at a time: it overlaps the wait for the next request, never piles up.
    let parsing: Promise<void> = Promise.resolve();

    for (const item of input.items) {
      if (outcomes.some((outcome) => outcome.kind !== 'done' || outcome.result.kind === 'robots-stale')) {
        outcomes.push({ kind: 'not-attempted' });
        continue;
      }
      const waitMs = burstWaitMs(politeness, input.policy, deps.now(), input.limits);
      if (waitMs === undefined) {
        outcomes.push({ kind: 'not-attempted' });
        continue;
      }
      await Promise.all([waitMs > 0 ? context.sleep(waitMs) : undefined, parsing]);
      context.heartbeat();

      politeness = onFetchStarted(politeness, deps.now());
      let outcome: FetchBurstOutcome;
      let hostOutcome: HostOutcome;
      try {
        const result = await fetchUrlAttempt(item, BURST_ATTEMPT_NUMBER);
        hostOutcome = hostOutcomeOfResult(result);
        outcome = { kind: 'done', result, parsed: false };
      } catch (error) {
        if (!(error instanceof ApplicationFailure) || error.type === null || error.type === undefined) throw error;
        const details = error.details?.[0] as FetchFailureDetails | undefined;
        hostOutcome = hostOutcomeOfFailure(error.type, details, deps.now());
        outcome = {
          kind: 'failed',
          failureType: error.type,
          message: error.message,
          ...(details === undefined ? {} : { details }),
          ...(error.nonRetryable || error.nextRetryDelay === undefined ? {} : { retryDelayMs: msToNumber(error.nextRetryDelay) }),
        };
      }
      if (hostOutcome.kind !== 'not-sent') requestsStarted += 1;
      politeness = applyHostOutcome(politeness, hostOutcome, input.policy, Math.random);
      outcomes.push(outcome);

      if (outcome.kind === 'done' && outcome.result.kind === 'fetched' && outcome.result.parse) {
        parsing = parseInBurst(item, outcome.result, outcome);
      }
    }
    await parsing;
    return { outcomes, politeness, requestsStarted };
  }

  /** Parses one fetched body; a failure is left to the workflow's parse activity and its retries. */
  async function parseInBurst(item: FetchUrlInput, fetched: Extract<FetchUrlResult, { kind: 'fetched' }>, outcome: Extract<FetchBurstOutcome, { kind: 'done' }>): Promise<void> {
    try {
      await parseDocument({
        crawlId: item.crawlId,
        fingerprint: item.fingerprint,
        generation: item.generation,
        url: item.url,
        finalUrl: fetched.finalUrl,
        depth: item.depth,
        bodyKey: fetched.bodyKey,
        contentType: fetched.contentType,
        ...(item.purpose === 'sitemap' ? { purpose: item.purpose } : {}),
      });
      outcome.parsed = true;
    } catch (error) {
      outcome.parseError = error instanceof Error ? error.message : String(error);
    }
  }

  return { fetchBurst };
}
