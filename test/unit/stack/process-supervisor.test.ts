import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { isProcessAlive, readPidFile, spawnDetached, stopProcess, tailFile } from '../../../src/stack/process-supervisor.js';

const dir = mkdtempSync(join(tmpdir(), 'supervisor-'));
const started: number[] = [];
afterAll(async () => {
  await Promise.all(started.map((pid) => stopProcess(pid, { graceMs: 100 })));
  rmSync(dir, { recursive: true, force: true });
});

async function waitForLog(path: string, text: string): Promise<void> {
  for (let i = 0; i < 100 && !tailFile(path, 50).includes(text); i++) await sleep(50);
}

describe('spawnDetached', () => {
  it('runs the process in the background with its output in the log and its pid in the pid file', async () => {
    const logFile = join(dir, 'logs', 'a.log');
    const pidFile = join(dir, 'run', 'a.pid');
    const child = spawnDetached({ command: '/bin/sh', args: ['-c', 'echo started; exec sleep 30'], logFile, pidFile });
    started.push(child.pid);
    expect(readPidFile(pidFile)).toBe(child.pid);
    await waitForLog(logFile, 'started');
    expect(readFileSync(logFile, 'utf8')).toContain('started');
    expect(isProcessAlive(child.pid)).toBe(true);
    // Its own process group: a signal to our group does not reach it.
    expect(readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[2]).toBe(String(child.pid));
  });

  it('appends to an existing log', async () => {
    const logFile = join(dir, 'append.log');
    for (const word of ['one', 'two']) {
      const child = spawnDetached({ command: '/bin/echo', args: [word], logFile });
      for (let i = 0; i < 100 && isProcessAlive(child.pid); i++) await sleep(20);
    }
    expect(readFileSync(logFile, 'utf8')).toBe('one\ntwo\n');
  });

  it('runs the program with the umask asked for, under its own name and pid, its log and pid file private', async () => {
    const logFile = join(dir, 'umask', 'u.log');
    const pidFile = join(dir, 'umask', 'u.pid');
    const made = join(dir, 'umask', 'made-by-child');
    // sleep after the file: the test sees the program, not a shell, under the pid.
    const child = spawnDetached({ command: '/bin/sh', args: ['-c', `: > ${made}; umask; exec sleep 30`], logFile, pidFile, umask: 0o077 });
    started.push(child.pid);
    await waitForLog(logFile, '0077');
    expect(readFileSync(logFile, 'utf8')).toContain('0077');
    expect(statSync(made).mode & 0o777).toBe(0o600);
    expect(statSync(logFile).mode & 0o777).toBe(0o600);
    expect(statSync(pidFile).mode & 0o777).toBe(0o600);
    expect(readPidFile(pidFile)).toBe(child.pid);
    for (let i = 0; i < 100 && !isProcessAlive(child.pid, 'sleep'); i++) await sleep(20);
    expect(isProcessAlive(child.pid, 'sleep')).toBe(true);
  });
});

describe('isProcessAlive', () => {
  it('checks the program name so a reused pid is not taken for ours', () => {
    const child = spawnDetached({ command: '/bin/sleep', args: ['30'], logFile: join(dir, 'sleep.log') });
    started.push(child.pid);
    expect(isProcessAlive(child.pid, 'sleep')).toBe(true);
    expect(isProcessAlive(child.pid, '/usr/bin/sleep')).toBe(true);
    expect(isProcessAlive(child.pid, 'postgres')).toBe(false);
  });

  it('is false for a pid that does not exist', () => {
    expect(isProcessAlive(2 ** 22 + 12345)).toBe(false);
  });
});

describe('stopProcess', () => {
  it('stops a process that honours SIGTERM', async () => {
    const child = spawnDetached({ command: '/bin/sleep', args: ['30'], logFile: join(dir, 'term.log') });
    expect(await stopProcess(child.pid)).toBe('stopped');
    expect(isProcessAlive(child.pid)).toBe(false);
  });

  it('kills a process that ignores the polite signal once the grace period is over', async () => {
    const logFile = join(dir, 'stubborn.log');
    const script = "process.on('SIGTERM', () => console.log('ignored')); console.log('ready'); setInterval(() => {}, 1000);";
    const child = spawnDetached({ command: process.execPath, args: ['-e', script], logFile });
    await waitForLog(logFile, 'ready');
    const startedAt = Date.now();
    expect(await stopProcess(child.pid, { graceMs: 300 })).toBe('killed');
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(300);
    expect(isProcessAlive(child.pid)).toBe(false);
    expect(readFileSync(logFile, 'utf8')).toContain('ignored');
  });

  it('does not signal a pid that runs another program', async () => {
    const child = spawnDetached({ command: '/bin/sleep', args: ['30'], logFile: join(dir, 'other.log') });
    started.push(child.pid);
    expect(await stopProcess(child.pid, { expectedProgram: 'minio' })).toBe('not-running');
    expect(isProcessAlive(child.pid)).toBe(true);
  });
});
