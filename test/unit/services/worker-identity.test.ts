// Worker identities name a process of a machine: a sibling that has exited on this machine can be
// told from one that still runs (HostWaker's eager starts depend on it).
import { spawn } from 'node:child_process';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { isExitedLocalWorker, localWorkerPid, workerIdentity } from '../../../src/services/worker-identity.js';

describe('worker identity', () => {
  it('names this machine and process, and reads the pid back', () => {
    expect(workerIdentity()).toBe(`${os.hostname()}/${process.pid}`);
    expect(localWorkerPid(workerIdentity(4242))).toBe(4242);
  });

  it("reads no pid from another machine's identity or another naming", () => {
    for (const identity of [`not-${os.hostname()}/4242`, `${os.hostname()}/`, `${os.hostname()}/0`, `${os.hostname()}/12ab`, `${os.hostname()}/4242/x`, '4242@host', '']) {
      expect(localWorkerPid(identity), identity).toBeUndefined();
    }
  });

  it('tells a process of this machine that has exited from one that runs', async () => {
    expect(isExitedLocalWorker(workerIdentity())).toBe(false);
    const child = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => child.once('exit', resolve));
    expect(isExitedLocalWorker(workerIdentity(child.pid!))).toBe(true);
    // Another machine's worker cannot be checked: it counts as running.
    expect(isExitedLocalWorker(`not-${os.hostname()}/${child.pid!}`)).toBe(false);
  });
});
