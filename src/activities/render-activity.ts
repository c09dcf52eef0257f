/**
 * The render activity, on the render task queue (docs/rendering.md): served only by workers with
 * browser slots. A thin adapter: the render is render-service.ts's; this maps its failures to
 * their types (FAILURE_POLICIES) with the host's politeness in the details, and decides which are
 * retried here: RenderCrashed and BrowserUnavailable up to their attempts, RenderTimeout never.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { FAILURE_POLICIES } from '../domain/failures/index.js';
import type { RenderFailureDetails, RenderPageInput, RenderPageResult } from '../contracts/activities.js';
import { RenderFailedError, type createRenderService } from '../services/rendering/render-service.js';
import { activityCallToken } from './support/activity-call-token.js';

export function createRenderActivities(render: ReturnType<typeof createRenderService>) {
  async function renderPage(input: RenderPageInput): Promise<RenderPageResult> {
    const context = Context.current();
    try {
      return await render(input, { heartbeat: () => context.heartbeat(), signal: context.cancellationSignal, callId: activityCallToken() });
    } catch (error) {
      if (!(error instanceof RenderFailedError)) throw error;
      const policy = FAILURE_POLICIES[error.failureType];
      const details: RenderFailureDetails = { politeness: error.politeness, requestsStarted: error.requestsStarted, attempt: context.info.attempt };
      const final = policy.retryLayer !== 'activity' || context.info.attempt >= policy.maxAttempts;
      throw ApplicationFailure.create({ type: error.failureType, message: error.message, nonRetryable: final, details: [details] });
    }
  }
  return { renderPage };
}
