// The queue of a burst's own parses: a failure is reported by settled(), as the chain it replaced
// reported it, and the parses after it still run; settled() waits for all of them.
import { describe, expect, it } from 'vitest';
import { ownParseQueue } from '../../../src/services/fetching/own-parse-queue.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('ownParseQueue', () => {
  it('reports the first failure from settled() and still runs the parses after it', async () => {
    const queue = ownParseQueue(2);
    const ran: string[] = [];
    queue.add(Promise.resolve(false), async () => {
      await tick();
      ran.push('a');
    });
    queue.add(Promise.resolve(false), async () => {
      await tick();
      throw new Error('b failed');
    });
    queue.add(Promise.resolve(false), async () => {
      await tick();
      ran.push('c');
    });
    await expect(queue.settled()).rejects.toThrow('b failed');
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(ran.sort()).toEqual(['a', 'c']);
  });

  it('settles at once with nothing added, and waits for every parse added', async () => {
    const queue = ownParseQueue(3);
    await expect(queue.settled()).resolves.toBeUndefined();
    let ended = 0;
    for (let i = 0; i < 5; i++) {
      queue.add(Promise.resolve(i === 2), async () => {
        await tick();
        ended += 1;
      });
    }
    await queue.settled();
    expect(ended).toBe(5);
  });

  it('a failing check of whether a body reads signals fails that parse, not the process', async () => {
    const queue = ownParseQueue(1);
    let ran = false;
    queue.add(Promise.reject(new Error('crawl not found')), async () => {
      ran = true;
    });
    await expect(queue.settled()).rejects.toThrow('crawl not found');
    expect(ran).toBe(false);
  });
});
