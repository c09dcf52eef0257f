// Text from the web reaches a worker's log and the failure records only neutralised: a page whose
// Content-Type holds C1 controls (U+0085, a line end to many readers; U+009B, a terminal's CSI)
// and a fake JSON record still gives one JSON record per line in `--log-format json`, read back
// as a line-based log shipper reads it.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { stopProcess } from '../support/crawler-process.js';
import { renderHtmlPage, startTestWeb, type TestWeb } from '../support/test-web/index.js';

/** Every place a reader may end a line: what Python's str.splitlines() and many log shippers split on. */
// eslint-disable-next-line no-control-regex
const LINE_ENDS = /\r\n|[\n\v\f\r\x1c-\x1e\x85\u2028\u2029]/;
const HOST = '127.94.0.1';
const HOSTILE_TYPE = 'application/x-hostile\u0085{"level":"ERROR","message":"forged"}\u009b31m red';

describe('hostile text from the web, in a JSON log and the failure records', () => {
  let harness: Harness;
  let web: TestWeb;
  let worker: ChildProcess;
  const stderr: Buffer[] = [];
  const crawlId = `e2e-hostile-text-${Date.now()}`;

  beforeAll(async () => {
    web = await startTestWeb({
      hosts: [
        {
          host: HOST,
          robotsTxt: 'User-agent: *\nAllow: /\n',
          pages: [
            { path: '/', body: renderHtmlPage({ title: 'home', links: [{ href: '/hostile', text: 'hostile' }], paragraphs: ['A page linking to a hostile one.'] }) },
            // Refused once: the retry runs as an activity of its own, whose failure the worker logs.
            { path: '/hostile', contentType: HOSTILE_TYPE, body: 'not html', behavior: { kind: 'fail-times', status: 503, times: 1 } },
          ],
        },
      ],
    });
    harness = await createHarness('e2e-hostile-text');
    worker = spawn('node', ['bin/crawler.js', 'worker', '--task-queue', harness.taskQueue, '--data-dir', harness.dataDir, '--log-format', 'json'], {
      env: harness.childEnv,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    worker.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
    const summary = await harness.runCrawl({ crawlId, seeds: [`http://${HOST}:${web.port}/`], config: { minHostDelayMs: 50, politeness: { retryDelayScale: 0.005 } } });
    expect(summary.state).toBe('finished');
    await stopProcess(worker);
  }, 180_000);

  afterAll(async () => {
    if (worker) await stopProcess(worker);
    await harness?.close();
    await web?.close();
  });

  it('records the failure with the header neutralised: controls escaped, nothing raw', async () => {
    const { rows } = await harness.pool.query<{ message: string }>("SELECT message FROM attempts WHERE crawl_id = $1 AND failure_type = 'UnsupportedContentType'", [crawlId]);
    expect(rows.length).toBeGreaterThan(0);
    for (const { message } of rows) {
      expect(message).toContain('application/x-hostile\\x85{"level":"ERROR"');
      expect(message).toContain('\\x9b31m red');
      // eslint-disable-next-line no-control-regex
      expect(message).not.toMatch(/[\x00-\x1f\x7f-\x9f\u2028\u2029]/);
    }
  });

  it('writes one JSON record per line, for a reader that splits on every Unicode line end', () => {
    const text = Buffer.concat(stderr).toString('utf8');
    const lines = text.split(LINE_ENDS).filter((line) => line.trim() !== '');
    expect(lines.length).toBeGreaterThan(0);
    const records = lines.map((line) => {
      expect(() => JSON.parse(line), line).not.toThrow();
      return JSON.parse(line) as { time?: string; level?: string; message?: string; error?: { message?: string } };
    });
    for (const record of records) expect(record).toMatchObject({ time: expect.any(String), level: expect.any(String), message: expect.any(String) });
    // The failure did reach the log, as one record: the header escaped inside it.
    const failed = records.filter((record) => record.error?.message?.includes('x-hostile'));
    expect(failed.length).toBeGreaterThan(0);
    for (const record of failed) expect(record.error!.message).toContain('x-hostile\\x85{"level":"ERROR","message":"forged"}\\x9b31m red');
    expect(records.some((record) => record.message === 'forged')).toBe(false);
  });
});
