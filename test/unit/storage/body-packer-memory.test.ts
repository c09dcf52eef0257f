// What a BodyPacker remembers of the bodies it stored, and what it lets go: a long crawl adds a
// body a page, so anything kept per body beyond its key grows with the crawl. No store needed:
// the pack store and the records' lookup are in memory.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BodyPacker, type BodyPackerOptions } from '../../../src/storage/object-store/body-packer.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const bodyOf = (text: string) => ({ sha256: createHash('sha256').update(text).digest('hex'), gzipped: gzipSync(Buffer.from(text)) });

function packerAt(clock: { nowMs: number }, options: BodyPackerOptions = {}): BodyPacker {
  return new BodyPacker({ putPack: async () => undefined }, async () => new Map(), { maxWaitMs: 1, ...options }, () => clock.nowMs);
}

describe('BodyPacker memory', () => {
  it('keeps a stored body by its key alone, so the async context its add() ran in is collected', async () => {
    const packer = packerAt({ nowMs: 0 });
    const contexts = new AsyncLocalStorage<{ task: Uint8Array }>();
    const body = bodyOf('a page stored while an activity ran');
    let context: WeakRef<object> | undefined;
    const stored = await (async () => {
      // An activity's context: its task, logger and timers. Here a megabyte that must not outlive it.
      const activity = { task: new Uint8Array(1024 * 1024) };
      context = new WeakRef(activity);
      return contexts.run(activity, () => packer.add(body.sha256, body.gzipped));
    })();
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    expect(context?.deref()).toBeUndefined();
    // Still remembered: the same body is answered from memory, not stored again.
    expect(packer.rememberedBodies).toBe(1);
    expect(await packer.add(body.sha256, body.gzipped)).toEqual({ key: stored.key, created: false });
  });

  it('forgets bodies past recentBodiesTtlMs once another is added', async () => {
    const clock = { nowMs: 0 };
    const packer = packerAt(clock, { recentBodiesTtlMs: 1_000 });
    await packer.add(bodyOf('one').sha256, bodyOf('one').gzipped);
    clock.nowMs = 500;
    await packer.add(bodyOf('two').sha256, bodyOf('two').gzipped);
    expect(packer.rememberedBodies).toBe(2);
    clock.nowMs = 1_200;
    await packer.add(bodyOf('three').sha256, bodyOf('three').gzipped);
    // 'one' is past its time: forgotten, though far below the count.
    expect(packer.rememberedBodies).toBe(2);
    expect((await packer.add(bodyOf('one').sha256, bodyOf('one').gzipped)).created).toBe(true);
    expect((await packer.add(bodyOf('two').sha256, bodyOf('two').gzipped)).created).toBe(false);
  });

  it('forgets the oldest bodies past maxRecentBodies', async () => {
    const packer = packerAt({ nowMs: 0 }, { maxRecentBodies: 2 });
    for (const text of ['one', 'two', 'three']) await packer.add(bodyOf(text).sha256, bodyOf(text).gzipped);
    expect(packer.rememberedBodies).toBe(2);
    expect((await packer.add(bodyOf('three').sha256, bodyOf('three').gzipped)).created).toBe(false);
    expect((await packer.add(bodyOf('one').sha256, bodyOf('one').gzipped)).created).toBe(true);
  });

  it('forgets a body whose pack failed, so that the next add() stores it', async () => {
    let fail = true;
    const packer = new BodyPacker(
      {
        putPack: async () => {
          if (fail) throw new Error('store down');
        },
      },
      async () => new Map(),
      { maxWaitMs: 1 },
    );
    const body = bodyOf('a page whose first pack failed');
    await expect(packer.add(body.sha256, body.gzipped)).rejects.toThrow('store down');
    expect(packer.rememberedBodies).toBe(0);
    fail = false;
    expect((await packer.add(body.sha256, body.gzipped)).created).toBe(true);
  });
});
