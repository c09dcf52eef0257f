import { describe, expect, it } from 'vitest';
import { logFormatOption } from '../../../src/cli/args.js';
import { CliError } from '../../../src/cli/cli-error.js';
import { jsonLogLine } from '../../../src/workers/log-format.js';

const at = BigInt(Date.UTC(2026, 11, 4, 1, 2, 3, 456)) * 1_000_000n;

describe('jsonLogLine', () => {
  it("writes time, level and message, then the entry's metadata, with the host drawn from a host workflow's id", () => {
    const line = jsonLogLine({ level: 'WARN', message: 'fetch burst failed', timestampNanos: at, meta: { workflowId: 'host/127.0.0.9', runId: 'r1', urls: 3 } });
    expect(JSON.parse(line)).toEqual({ time: '2026-12-04T01:02:03.456Z', level: 'WARN', message: 'fetch burst failed', workflowId: 'host/127.0.0.9', runId: 'r1', urls: 3, host: '127.0.0.9' });
    expect(line).not.toContain('\n');
  });

  it("draws the crawl id from a crawl workflow's id, keeps one the entry names, and writes bigints and errors as JSON can", () => {
    expect(JSON.parse(jsonLogLine({ level: 'INFO', message: 'm', timestampNanos: at, meta: { workflowId: 'crawl/c-1' } }))).toMatchObject({ crawlId: 'c-1' });
    expect(JSON.parse(jsonLogLine({ level: 'INFO', message: 'm', timestampNanos: at, meta: { workflowId: 'crawl/c-1', crawlId: 'given' } }))).toMatchObject({ crawlId: 'given' });
    const odd = JSON.parse(jsonLogLine({ level: 'ERROR', message: 'm', timestampNanos: at, meta: { n: 12n, error: new Error('boom') } }));
    expect(odd).toMatchObject({ n: '12', error: { name: 'Error', message: 'boom' } });
  });

  it('stays one line for a reader that ends lines at U+0085, U+2028 or U+2029: they are escaped, the value the same', () => {
    const message = 'content type text/x\u0085{"level":"ERROR"}\u009b31m\u2028\u2029 is not crawled';
    const line = jsonLogLine({ level: 'WARN', message: 'Activity failed', timestampNanos: at, meta: { error: new Error(message), workflowId: 'host/a\u0085b' } });
    expect(line).not.toMatch(/[\n\r\u0085\u2028\u2029\u009b]/);
    expect(JSON.parse(line)).toMatchObject({ error: { message }, host: 'a\u0085b' });
  });
});

describe('--log-format', () => {
  it('is text by default, json when asked, and anything else exits 2 naming the choices', () => {
    expect(logFormatOption(undefined)).toBe('text');
    expect(logFormatOption('json')).toBe('json');
    const error = (() => {
      try {
        logFormatOption('yaml');
      } catch (thrown) {
        return thrown;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toBe("--log-format 'yaml' is not a log format: use one of text, json");
  });
});
