// What host runs were made of, from their histories on a stack the bench kept (`--keep-stack`):
// how many ran their first burst as a local activity, how many then needed burst activities, how
// many requests the local bursts started and where their time went (the bursts' own stage timings).
// Figures only: `node bin/run-ts.js bench/host-run-histories.ts --data-dir D [--sample 300] [--hosts-from 127.77.]`
// (--hosts-from: only hosts whose name starts so, e.g. one web's address range).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { FetchBurstResult } from '../src/contracts/activities.js';
import { localActivityOf } from '../test/support/local-activity-marker.js';

const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, sample: { type: 'string', default: '300' }, 'hosts-from': { type: 'string', default: '' } } });
if (values['data-dir'] === undefined) {
  console.error('usage: node bin/run-ts.js bench/host-run-histories.ts --data-dir D [--sample N] [--hosts-from PREFIX]   (D: a stack the bench kept)');
  process.exit(2);
}
const stack = JSON.parse(readFileSync(path.join(values['data-dir'], 'stack.json'), 'utf8')) as { temporal: { port: number; namespace: string } };
const sample = Number(values.sample);

const connection = await Connection.connect({ address: `127.0.0.1:${stack.temporal.port}` });
const client = new Client({ connection, namespace: stack.temporal.namespace });

let runs = 0;
let withLocalBurst = 0;
let withBurstActivity = 0;
const events: number[] = [];
const localRequests: number[] = [];
const localStagesMs: Record<string, number[]> = {};
for await (const workflow of client.workflow.list({ query: `WorkflowType = 'hostWorkflow'` })) {
  if (runs >= sample) break;
  if (!workflow.workflowId.startsWith(`host/${values['hosts-from']}`)) continue;
  runs += 1;
  const history = await client.workflow.getHandle(workflow.workflowId, workflow.runId).fetchHistory();
  let local = 0;
  let activities = 0;
  for (const event of history.events ?? []) {
    if (event.activityTaskScheduledEventAttributes?.activityType?.name === 'fetchBurst') activities += 1;
    const marker = localActivityOf(event);
    if (marker?.type !== 'fetchBurst') continue;
    local += 1;
    if (marker.result === undefined) continue;
    const result = defaultPayloadConverter.fromPayload<FetchBurstResult>(marker.result);
    localRequests.push(result.requestsStarted);
    for (const [stage, ms] of Object.entries(result.stageMs ?? {})) (localStagesMs[stage] ??= []).push(ms);
  }
  events.push(history.events?.length ?? 0);
  if (local > 0) withLocalBurst += 1;
  if (activities > 0) withBurstActivity += 1;
}
await connection.close();

const counts = (values: number[]): Record<string, number> => values.reduce<Record<string, number>>((all, value) => ({ ...all, [value]: (all[value] ?? 0) + 1 }), {});
const quantiles = (values: number[]): { min: number; p50: number; p90: number; max: number } => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (share: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? 0;
  return { min: sorted[0] ?? 0, p50: at(0.5), p90: at(0.9), max: sorted.at(-1) ?? 0 };
};
console.log(
  JSON.stringify(
    {
      runs,
      withLocalBurst,
      withBurstActivity,
      historyEvents: quantiles(events),
      localBurstRequests: counts(localRequests),
      localBurstStagesMs: Object.fromEntries(Object.entries(localStagesMs).map(([stage, ms]) => [stage, quantiles(ms)])),
    },
    null,
    1,
  ),
);
