import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, openSync, closeSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { findFreePorts } from '../../../src/stack/free-port.js';
import { logReportsPortInUse, startOnFreePorts, type StartRetry } from '../../../src/stack/port-retry.js';
import { temporalStartTimedOut } from '../../../src/stack/temporal-dev-server.js';
import { StackError } from '../../../src/stack/stack-error.js';

const root = mkdtempSync(join(tmpdir(), 'port-retry-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const running: ChildProcess[] = [];
const held: Server[] = [];
afterEach(async () => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
  await Promise.all(held.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** Another program's listener on a port, bound before the service under test starts. */
async function holdPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
  held.push(server);
  return (server.address() as { port: number }).port;
}

/**
 * A stand-in service: a Node process listening on `port`, its errors appended to `logFile` as the
 * stack's services do. Resolves once it says it listens; a start that exits is thrown as the stack
 * throws it (STACK_START_FAILED).
 */
async function startListener(
  port: number,
  logFile: string,
  script = `require('net').createServer().listen(${port}, '127.0.0.1', () => console.log('listening'))`,
): Promise<number> {
  const log = openSync(logFile, 'a');
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', log] });
  closeSync(log);
  running.push(child);
  const outcome = await new Promise<'listening' | 'exited'>((resolve) => {
    child.stdout?.once('data', () => resolve('listening'));
    child.once('exit', () => resolve('exited'));
  });
  if (outcome === 'exited') {
    throw new StackError(`listener exited while starting on ${port}`, { code: 'STACK_START_FAILED', service: 's3', hint: 'read the log' });
  }
  return port;
}

/** Free ports, counting the claims made. */
function countingClaims(): { claim: (count: number) => Promise<number[]>; count: () => number } {
  let claims = 0;
  return {
    claim: (count) => {
      claims++;
      return findFreePorts(count);
    },
    count: () => claims,
  };
}

describe('startOnFreePorts', () => {
  it('starts again on another port when the one it was given is taken before the service binds it', async () => {
    const logFile = join(root, 'taken.log');
    const taken = await holdPort();
    const claims: number[][] = [];
    const retries: StartRetry[] = [];
    const port = await startOnFreePorts({
      count: 1,
      preferredPorts: [],
      // The first claim hands out a port another program grabbed in between, as in the race.
      claimPorts: async (count) => {
        const ports = claims.length === 0 ? [taken] : await findFreePorts(count, { excludePorts: new Set([taken]) });
        claims.push(ports);
        return ports;
      },
      logFile,
      start: ([attemptPort = 0]) => startListener(attemptPort, logFile),
      onRetry: (retry) => retries.push(retry),
    });
    expect(retries).toEqual([{ reason: 'port-taken', ports: [taken] }]);
    expect(claims).toHaveLength(2);
    expect(port).toBe(claims[1]?.[0]);
    expect(port).not.toBe(taken);
  });

  it('keeps the preferred ports on the first attempt only', async () => {
    const logFile = join(root, 'preferred.log');
    const taken = await holdPort();
    const preferences: (number | undefined)[][] = [];
    await startOnFreePorts({
      count: 1,
      preferredPorts: [taken],
      claimPorts: async (count, preferredPorts) => {
        preferences.push([...preferredPorts]);
        return preferences.length === 1 ? [taken] : findFreePorts(count, { excludePorts: new Set([taken]) });
      },
      logFile,
      start: ([attemptPort = 0]) => startListener(attemptPort, logFile),
    });
    expect(preferences).toEqual([[taken], []]);
  });

  it('throws a failure that is not about ports without trying again', async () => {
    const logFile = join(root, 'crash.log');
    const claims = countingClaims();
    const failing = startOnFreePorts({ count: 1, preferredPorts: [], claimPorts: claims.claim, logFile, start: ([attemptPort = 0]) => startListener(attemptPort, logFile, "console.error('configuration is broken'); process.exit(3)") });
    await expect(failing).rejects.toThrow(/exited while starting/);
    expect(claims.count()).toBe(1);
  });

  it('does not read an old bind failure left in the log by an earlier run as this attempt’s', async () => {
    const logFile = join(root, 'old.log');
    appendFileSync(logFile, 'FATAL Unable to start the server: Specified port is already in use\n');
    const claims = countingClaims();
    const failing = startOnFreePorts({ count: 1, preferredPorts: [], claimPorts: claims.claim, logFile, start: ([attemptPort = 0]) => startListener(attemptPort, logFile, 'process.exit(1)') });
    await expect(failing).rejects.toBeInstanceOf(StackError);
    expect(claims.count()).toBe(1);
  });

  it('starts again on the same ports when the service gave up its own start-up, and only then', async () => {
    const logFile = join(root, 'timed-out.log');
    const marker = join(root, 'timed-out.first-attempt');
    const claims = countingClaims();
    const retries: StartRetry[] = [];
    const attempts: number[][] = [];
    // Gives up its start once, as the Temporal dev server does over a backlog, then listens.
    const script = (port: number) =>
      `const fs = require('fs'); if (!fs.existsSync(${JSON.stringify(marker)})) { fs.writeFileSync(${JSON.stringify(marker)}, ''); ` +
      `console.error('level=ERROR msg="failed starting server: failed to start service worker: context deadline exceeded"'); process.exit(1); } ` +
      `require('net').createServer().listen(${port}, '127.0.0.1', () => console.log('listening'))`;
    const port = await startOnFreePorts({
      count: 1,
      preferredPorts: [],
      claimPorts: claims.claim,
      logFile,
      startMayCatchUp: temporalStartTimedOut,
      start: (ports) => {
        attempts.push(ports);
        return startListener(ports[0] ?? 0, logFile, script(ports[0] ?? 0));
      },
      onRetry: (retry) => retries.push(retry),
    });
    expect(attempts).toEqual([[port], [port]]);
    expect(claims.count()).toBe(1);
    expect(retries).toEqual([{ reason: 'start-timed-out', ports: [port] }]);

    // The same failure, for a service that cannot catch up: thrown at once.
    rmSync(marker);
    const noCatchUp = countingClaims();
    const failing = startOnFreePorts({ count: 1, preferredPorts: [], claimPorts: noCatchUp.claim, logFile, start: ([attemptPort = 0]) => startListener(attemptPort, logFile, script(attemptPort)) });
    await expect(failing).rejects.toThrow(/exited while starting/);
    expect(noCatchUp.count()).toBe(1);
  });

  it('gives up after maxAttempts, with the last failure', async () => {
    const logFile = join(root, 'always-taken.log');
    const taken = await holdPort();
    let claims = 0;
    const failing = startOnFreePorts({
      count: 1,
      preferredPorts: [],
      claimPorts: async () => {
        claims++;
        return [taken];
      },
      logFile,
      start: ([attemptPort = 0]) => startListener(attemptPort, logFile),
      maxAttempts: 2,
    });
    await expect(failing).rejects.toThrow(new RegExp(`exited while starting on ${taken}`));
    expect(claims).toBe(2);
  });
});

describe('logReportsPortInUse', () => {
  it('recognizes the bind failures of each service of the stack, in what was appended only', () => {
    const lines = [
      'FATAL Unable to start the server: Specified port is already in use', // MinIO
      'LOG:  could not bind IPv4 address "127.0.0.1": Address already in use', // Postgres
      'listen tcp 127.0.0.1:7233: bind: address already in use', // Temporal (Go)
      'Error: listen EADDRINUSE: address already in use 127.0.0.1:9000', // Node
    ];
    for (const [index, line] of lines.entries()) {
      const logFile = join(root, `service-${index}.log`);
      appendFileSync(logFile, 'starting\n');
      const offset = 'starting\n'.length;
      expect(logReportsPortInUse(logFile, offset)).toBe(false);
      appendFileSync(logFile, `${line}\n`);
      expect(logReportsPortInUse(logFile, offset)).toBe(true);
      expect(logReportsPortInUse(logFile, offset + line.length + 1)).toBe(false);
    }
    expect(logReportsPortInUse(join(root, 'missing.log'), 0)).toBe(false);
  });
});

describe('temporalStartTimedOut', () => {
  it('recognizes the dev server giving up its start-up, and nothing else', () => {
    // As temporal v1.5.1 writes it (start-dev over a store stopped with 1,000 host runs mid-flight).
    expect(temporalStartTimedOut('time=2026-12-05T07:54:11.205 level=ERROR msg="failed starting server: failed to start service worker: context deadline exceeded"\n')).toBe(true);
    expect(temporalStartTimedOut('level=ERROR msg="failed starting server: unable to open database file"')).toBe(false);
    expect(temporalStartTimedOut('level=ERROR msg="Operation failed with internal error." error="GetWorkflowExecution: failed. Error: context deadline exceeded"')).toBe(false);
    expect(temporalStartTimedOut('')).toBe(false);
  });
});
