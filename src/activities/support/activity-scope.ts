import { Context, log } from '@temporalio/activity';
import type { ActivityScope } from '../../services/fetching/activity-scope.js';
import { activityCallToken } from './activity-call-token.js';

/** The running activity's scope, for the services it calls (heartbeats, cancellation, sleeps). */
export function currentActivityScope(): ActivityScope {
  const context = Context.current();
  return {
    heartbeat: () => context.heartbeat(),
    cancellationSignal: context.cancellationSignal,
    cancelled: context.cancelled,
    sleepMs: (ms) => context.sleep(ms),
    startToCloseTimeoutMs: context.info.startToCloseTimeoutMs,
    attempt: context.info.attempt,
    isLocal: context.info.isLocal,
    callToken: activityCallToken,
    warn: (message, attributes) => log.warn(message, attributes),
  };
}
