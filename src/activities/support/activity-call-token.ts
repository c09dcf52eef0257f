import { Context } from '@temporalio/activity';

/**
 * Names the running activity call: the same across the retries of one call, different between
 * calls (a claim's token, a robots.txt refresh lease's owner).
 */
export function activityCallToken(): string {
  const info = Context.current().info;
  const execution = info.workflowExecution ?? { workflowId: 'standalone', runId: info.activityId };
  return `${execution.workflowId}/${execution.runId}/${info.activityId}`;
}
