import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureStack } from '../../../src/stack/stack.js';
import { stackStatus } from '../../../src/stack/stack-status.js';
import { makeDataDirPrivate } from '../../../src/stack/private-files.js';
import { withStackLock } from '../../../src/stack/stack-lock.js';
import { readStackState, writeStackState } from '../../../src/stack/stack-state.js';
import { lookupSystemUser } from '../../../src/stack/system-user.js';

const root = mkdtempSync(join(tmpdir(), 'stack-files-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('stack.json', () => {
  it('round-trips and is readable by its owner only (it holds the MinIO password)', () => {
    const dataDir = join(root, 'state');
    writeStackState(dataDir, { version: 1, minioCredentials: { accessKey: 'a', secretKey: 'secret' } });
    expect(statSync(join(dataDir, 'stack.json')).mode & 0o777).toBe(0o600);
    expect(readStackState(dataDir).minioCredentials).toEqual({ accessKey: 'a', secretKey: 'secret' });
  });

  it('reads as empty when missing', () => {
    expect(readStackState(join(root, 'nothing-here'))).toEqual({ version: 1 });
  });
});

describe('makeDataDirPrivate', () => {
  it('creates the folder 0700 whatever the umask', () => {
    const dataDir = join(root, 'private', 'fresh');
    const previous = process.umask(0o002);
    try {
      makeDataDirPrivate(dataDir);
    } finally {
      process.umask(previous);
    }
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
  });

  it('closes a folder made before to others: its own search bit stays, the entries in it become private', () => {
    const dataDir = join(root, 'private', 'old');
    mkdirSync(join(dataDir, 'temporal'), { recursive: true });
    writeFileSync(join(dataDir, 'temporal', 'temporal.db'), 'rows');
    writeFileSync(join(dataDir, 'stack.lock'), '1');
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'temporal'), 0o755);
    chmodSync(join(dataDir, 'stack.lock'), 0o644);
    makeDataDirPrivate(dataDir);
    expect(statSync(dataDir).mode & 0o777).toBe(0o711);
    expect(statSync(join(dataDir, 'temporal')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dataDir, 'stack.lock')).mode & 0o777).toBe(0o600);
  });

  it('leaves entries of other users alone (a cluster folder owned by postgres)', () => {
    const dataDir = join(root, 'private', 'others');
    mkdirSync(join(dataDir, 'postgres'), { recursive: true });
    chmodSync(join(dataDir, 'postgres'), 0o750);
    makeDataDirPrivate(dataDir, (process.getuid?.() ?? 0) + 1);
    expect(statSync(join(dataDir, 'postgres')).mode & 0o777).toBe(0o750);
  });
});

describe('withStackLock', () => {
  it('runs callers in this process one after another', async () => {
    const dataDir = join(root, 'lock-queue');
    const events: string[] = [];
    const job = (name: string) =>
      withStackLock(dataDir, async () => {
        events.push(`${name}:in`);
        await sleep(30);
        events.push(`${name}:out`);
        return name;
      });
    expect(await Promise.all([job('a'), job('b'), job('c')])).toEqual(['a', 'b', 'c']);
    expect(events).toEqual(['a:in', 'a:out', 'b:in', 'b:out', 'c:in', 'c:out']);
  });

  it('releases the lock when the callback throws', async () => {
    const dataDir = join(root, 'lock-throw');
    await expect(withStackLock(dataDir, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await withStackLock(dataDir, () => Promise.resolve('next'))).toBe('next');
  });

  it('takes over the lock of a process that died', async () => {
    const dataDir = join(root, 'lock-stale');
    await withStackLock(dataDir, () => Promise.resolve());
    writeFileSync(join(dataDir, 'stack.lock'), `${2 ** 22 + 4321}\n`);
    expect(await withStackLock(dataDir, () => Promise.resolve('taken'), { timeoutMs: 1_000 })).toBe('taken');
  });

  it('gives up on a live holder with an error naming it', async () => {
    const dataDir = join(root, 'lock-held');
    await withStackLock(dataDir, () => Promise.resolve());
    writeFileSync(join(dataDir, 'stack.lock'), `${process.ppid}\n`);
    await expect(withStackLock(dataDir, () => Promise.resolve(), { timeoutMs: 300 })).rejects.toMatchObject({
      code: 'STACK_LOCKED',
      message: expect.stringContaining(String(process.ppid)),
    });
    expect(readFileSync(join(dataDir, 'stack.lock'), 'utf8').trim()).toBe(String(process.ppid));
  });
});

describe('stackStatus without anything started', () => {
  it('reports external services from the environment and the rest stopped', async () => {
    const status = await stackStatus({
      dataDir: join(root, 'empty'),
      env: { TEMPORAL_ADDRESS: 'temporal.internal:7233', DATABASE_URL: 'postgres://u:hunter2@db/crawler' },
    });
    expect(status.temporal).toEqual({ state: 'external', endpoint: 'temporal.internal:7233' });
    // The password never reaches a status line.
    expect(status.postgres).toEqual({ state: 'external', endpoint: 'postgres://u:***@db/crawler' });
    expect(status.s3).toEqual({ state: 'stopped' });
  });

  it.each([
    ['postgres://crawler:p@ss@db/crawler', 'postgres://crawler:***@db/crawler'],
    ['postgres://crawler:pa:ss@db/crawler', 'postgres://crawler:***@db/crawler'],
    ['postgres://crawler:pa/ss@db/crawler', 'postgres://crawler:***@db/crawler'],
    ['postgres://crawler@db/crawler?sslmode=require&password=hunter2', 'postgres://crawler@db/crawler?sslmode=require&password=***'],
  ])('hides the whole password of %s', async (url, shown) => {
    const status = await stackStatus({ dataDir: join(root, 'empty'), env: { DATABASE_URL: url } });
    expect(status.postgres).toEqual({ state: 'external', endpoint: shown });
  });
});

describe('ensureStack input checks', () => {
  it('rejects a malformed environment before creating anything', async () => {
    const dataDir = join(root, 'bad-env');
    await expect(ensureStack({ dataDir, env: { TEMPORAL_ADDRESS: 'no port here' } })).rejects.toMatchObject({
      code: 'STACK_BAD_CONFIG',
      service: 'temporal',
    });
    expect(() => statSync(dataDir)).toThrow();
  });
});

describe('lookupSystemUser', () => {
  it('reads uid and gid from a passwd file', () => {
    const passwd = join(root, 'passwd');
    writeFileSync(passwd, 'root:x:0:0:root:/root:/bin/bash\npostgres:x:101:104:PostgreSQL:/var/lib/postgresql:/bin/bash\n');
    expect(lookupSystemUser('postgres', passwd)).toEqual({ name: 'postgres', uid: 101, gid: 104 });
    expect(lookupSystemUser('nobody-here', passwd)).toBeUndefined();
  });
});
