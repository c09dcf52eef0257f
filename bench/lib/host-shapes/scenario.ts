// The `host-shapes` scenario: what a host's turn costs Temporal and the worker in the product's
// shape (a workflow run per host) and in a bounded set of back-queue workflows serving hosts in
// turn, with the same local activities and nothing else (no HTTP, no Postgres), on the bench
// stack's dev server and a worker configured as the product's. It says how much of a host's cost
// the workflow shape itself sets: the 1,000- and 10,000-host webs of the cli scenario pay it once
// per host (bench/README.md).
import { fileURLToPath } from 'node:url';
import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { stopStack } from '../../../src/stack/index.js';
import { workerWithSandboxCallTimeout } from '../../../src/workers/sandbox-call-timeout.js';
import { MAX_OPEN_WORKFLOW_TASKS } from '../../../src/workers/crawler-worker.js';
import { prepareBenchStack } from '../bench-stack.js';
import { serviceCpuSeconds } from '../child-cpu.js';
import { quantile, ratioOf, round as rounded } from '../stats.js';
import { waitForWorkflowsToClose } from '../temporal-figures.js';
import { hostShapeActivities } from './activities.js';
import type { BackQueueInput } from './workflows.js';

export interface HostShapesOptions {
  hosts: number;
  /** Rounds of both shapes, alternating. */
  rounds: number;
  /** Back-queue workflows serving the hosts (Mercator: about three per fetching thread). */
  backQueues: number;
  /** Hosts a back-queue run serves before it continues as new. */
  hostsPerRun: number;
  dataDir: string;
  keepStack: boolean;
  log: (line: string) => void;
}

export type HostShape = 'run-per-host' | 'run-per-host-claiming-burst' | 'back-queues';

export interface HostShapeFigures {
  shape: HostShape;
  round: number;
  hosts: number;
  wallSeconds: number;
  /** The Temporal dev server's CPU, ms per host. */
  serverCpuMsPerHost: number;
  /** This process's CPU (worker and client), ms per host. */
  workerCpuMsPerHost: number;
  historyEventsPerHost: number;
  workflowRuns: number;
}

export interface HostShapesReport {
  scenario: 'host-shapes';
  hosts: number;
  backQueues: number;
  hostsPerRun: number;
  runs: HostShapeFigures[];
  /** Medians over rounds of back-queues / run-per-host. */
  serverCpuRatio: number;
  workerCpuRatio: number;
}

/** How long the runs may take to close once the last burst returned, ms. */
const CLOSE_TIMEOUT_MS = 60_000;
/** Starts in flight at once, as the product's host waker sends them. */
const STARTERS = 16;

export async function runHostShapesScenario(options: HostShapesOptions): Promise<HostShapesReport> {
  // The SDK logs to stdout, where --json writes the report. A back queue's workflow task runs its
  // hosts' local activities back to back and outlasts the SDK's 5 s warning: expected here.
  Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
  const stack = await prepareBenchStack({ dataDir: options.dataDir, fresh: false, log: options.log });
  const { address, namespace } = stack.endpoints.temporal;
  const serverPid = stack.status.temporal.pid;
  const connection = await NativeConnection.connect({ address });
  // Over the worker's connection, as the product's starter: a start can then be eager.
  const client = new Client({ connection: connection as never, namespace });
  const runs: HostShapeFigures[] = [];
  try {
    for (let round = 1; round <= options.rounds; round++) {
      for (const shape of ['run-per-host', 'run-per-host-claiming-burst', 'back-queues'] as const) {
        const figures = await runShape(shape, round, { connection, client, namespace, serverPid, ...options });
        options.log(
          `host-shapes: ${shape} round ${round}: ${figures.hosts} hosts in ${figures.wallSeconds} s; server ${figures.serverCpuMsPerHost} ms, worker ${figures.workerCpuMsPerHost} ms a host; ${figures.historyEventsPerHost} events a host`,
        );
        runs.push(figures);
      }
    }
  } finally {
    await connection.close();
    if (!options.keepStack && stack.startedHere) await stopStack({ dataDir: options.dataDir });
  }
  const ratios = (figure: 'serverCpuMsPerHost' | 'workerCpuMsPerHost'): number =>
    quantile(
      Array.from({ length: options.rounds }, (_, i) => {
        const of = (shape: HostShape) => runs.find((run) => run.shape === shape && run.round === i + 1)![figure];
        return ratioOf(of('back-queues'), of('run-per-host'));
      }),
      0.5,
    );
  return {
    scenario: 'host-shapes',
    hosts: options.hosts,
    backQueues: options.backQueues,
    hostsPerRun: options.hostsPerRun,
    runs,
    serverCpuRatio: ratios('serverCpuMsPerHost'),
    workerCpuRatio: ratios('workerCpuMsPerHost'),
  };
}

interface ShapeContext extends HostShapesOptions {
  connection: NativeConnection;
  client: Client;
  namespace: string;
  serverPid: number | undefined;
}

async function runShape(shape: HostShape, round: number, context: ShapeContext): Promise<HostShapeFigures> {
  const taskQueue = `host-shapes-${shape}-${round}-${Date.now()}`;
  let bursts = 0;
  let allServed!: () => void;
  const served = new Promise<void>((resolve) => (allServed = resolve));
  const worker = await workerWithSandboxCallTimeout(undefined).create({
    connection: context.connection,
    namespace: context.namespace,
    taskQueue,
    workflowsPath: fileURLToPath(new URL('./workflows.ts', import.meta.url)),
    activities: hostShapeActivities(() => {
      if (++bursts === context.hosts) allServed();
    }),
    maxCachedWorkflows: 1000,
    // The product's worker limits: many open workflow tasks and local activities.
    maxConcurrentWorkflowTaskExecutions: MAX_OPEN_WORKFLOW_TASKS,
    maxConcurrentLocalActivityExecutions: MAX_OPEN_WORKFLOW_TASKS,
  });
  const running = worker.run();
  const hosts = Array.from({ length: context.hosts }, (_, i) => `${taskQueue}-host-${i}`);
  const serverBefore = serviceCpuSeconds(context.serverPid);
  const cpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  if (shape !== 'back-queues') {
    const workflowType = shape === 'run-per-host' ? 'hostShapeRun' : 'hostShapeRunClaimingBurst';
    let next = 0;
    await Promise.all(
      Array.from({ length: STARTERS }, async () => {
        for (let i = next++; i < hosts.length; i = next++) {
          await context.client.workflow.start(workflowType, { workflowId: hosts[i]!, taskQueue, args: [hosts[i]!], requestEagerStart: true });
        }
      }),
    );
  } else {
    const share = Math.ceil(hosts.length / context.backQueues);
    await Promise.all(
      Array.from({ length: context.backQueues }, (_, queue) => {
        const input: BackQueueInput = { hosts: hosts.slice(queue * share, (queue + 1) * share), hostsPerRun: context.hostsPerRun };
        return context.client.workflow.start('hostShapeBackQueue', { workflowId: `${taskQueue}-queue-${queue}`, taskQueue, args: [input] });
      }),
    );
  }
  // Served when the last burst returned; the runs' completions follow within their workflow task.
  await served;
  await waitForWorkflowsToClose(context.client, taskQueue, CLOSE_TIMEOUT_MS);
  const workflowRuns = await runsAndEvents(context.client, taskQueue);
  const wallSeconds = (performance.now() - startedAt) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const serverSeconds = serviceCpuSeconds(context.serverPid) - serverBefore;
  worker.shutdown();
  await running;
  return {
    shape,
    round,
    hosts: context.hosts,
    wallSeconds: rounded(wallSeconds, 2),
    serverCpuMsPerHost: rounded((serverSeconds * 1000) / context.hosts, 2),
    workerCpuMsPerHost: rounded((cpu.user + cpu.system) / 1000 / context.hosts, 2),
    historyEventsPerHost: rounded(workflowRuns.events / context.hosts, 2),
    workflowRuns: workflowRuns.runs,
  };
}

/** Runs of the task queue and their history events, as visibility lists them. */
async function runsAndEvents(client: Client, taskQueue: string): Promise<{ runs: number; events: number }> {
  let runs = 0;
  let events = 0;
  for await (const info of client.workflow.list({ query: `TaskQueue = '${taskQueue}'` })) {
    runs += 1;
    events += info.historyLength;
  }
  return { runs, events };
}

export function printHostShapesReport(report: HostShapesReport): void {
  console.log(`host-shapes: ${report.hosts} hosts; back queues ${report.backQueues} (${report.hostsPerRun} hosts a run)`);
  console.log('| shape | round | wall s | server CPU ms a host | worker CPU ms a host | history events a host | runs |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const run of report.runs) {
    console.log(`| ${run.shape} | ${run.round} | ${run.wallSeconds} | ${run.serverCpuMsPerHost} | ${run.workerCpuMsPerHost} | ${run.historyEventsPerHost} | ${run.workflowRuns} |`);
  }
  console.log(`back queues / run per host, median of rounds: server CPU ${report.serverCpuRatio}, worker CPU ${report.workerCpuRatio}`);
}
