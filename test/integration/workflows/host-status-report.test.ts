// `crawler status --host` answers within seconds even when the host's workflow cannot: a query
// waits for the workflow's open task (a run's first burst runs inside it), so past a deadline the
// command shows what Postgres holds of the host. Here no worker polls the workflow's task queue,
// so its query is never answered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError } from '../../../src/cli/cli-error.js';
import { describeHostStatus, hostStatusReport } from '../../../src/cli/host-status.js';
import { resolveCrawlConfig } from '../../../src/config/crawl-config.js';
import { hostWorkflowId } from '../../../src/contracts/messages.js';
import { createCrawl } from '../../../src/storage/postgres/crawl-repository.js';
import { registerFrontierEntries } from '../../../src/storage/postgres/frontier-registration.js';
import { markHostsActive } from '../../../src/storage/postgres/host-repository.js';
import { createHarness, type Harness } from '../../support/crawler-harness.js';
import { frontierEntry } from '../../support/frontier-entry.js';

describe('status --host', () => {
  let harness: Harness;
  // Addresses no other test uses: host workflow ids are shared by every test on the dev server.
  const host = '127.92.9.1';
  const crawlId = `host-status-${Date.now()}`;

  beforeAll(async () => {
    harness = await createHarness('host-status-report');
    await createCrawl(harness.pool, { id: crawlId, config: resolveCrawlConfig({ allowPrivateNetworks: true, maxPages: 100 }), seedHosts: [host] });
    await registerFrontierEntries(harness.pool, crawlId, [frontierEntry(host, 'a'), frontierEntry(host, 'b')], { respectDiscoveryBudget: false });
    await markHostsActive(harness.pool, [host]);
    // Started where no worker polls: its first workflow task never runs, so no query is answered.
    await harness.client.workflow.start('hostWorkflow', { workflowId: hostWorkflowId(host), taskQueue: `${harness.taskQueue}-unpolled`, args: [{ host }] });
  });

  afterAll(async () => {
    await harness.client.workflow.getHandle(hostWorkflowId(host)).terminate('test over').catch(() => undefined);
    await harness?.close();
  });

  it("shows Postgres's record of the host when its workflow does not answer in time", async () => {
    const startedAt = Date.now();
    const report = await hostStatusReport(harness.client, harness.pool, host, 1000);
    expect(Date.now() - startedAt).toBeLessThan(10_000);
    expect(report).toMatchObject({ host, answered: false, waitedMs: 1000, saved: { workflowActive: true, queued: 2, paused: false, nextFetchAtMs: null } });
    const text = describeHostStatus(report);
    expect(text).toContain(`host ${host}: its workflow did not answer within 1 s`);
    expect(text).toContain('queued in Postgres (not yet claimed by its workflow) 2');
  });

  it('says a host no crawl has met has no workflow', async () => {
    await expect(hostStatusReport(harness.client, harness.pool, '127.92.9.2', 1000)).rejects.toThrow(/no workflow for host 127\.92\.9\.2/);
  });

  it('says a host whose workflow closed before its first task ran has no live view', async () => {
    const closedHost = '127.92.9.3';
    await harness.client.workflow.start('hostWorkflow', { workflowId: hostWorkflowId(closedHost), taskQueue: `${harness.taskQueue}-unpolled`, args: [{ host: closedHost }] });
    await harness.client.workflow.getHandle(hostWorkflowId(closedHost)).terminate('closed before its first task');
    const failure = hostStatusReport(harness.client, harness.pool, closedHost, 1000);
    await expect(failure).rejects.toThrow(CliError);
    await expect(failure).rejects.toThrow(/127\.92\.9\.3.*closed before/);
  });
});
