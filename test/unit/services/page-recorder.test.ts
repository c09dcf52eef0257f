// Group commit for parsed pages: pages submitted while a transaction is under way join the next
// one, within its limits; one bad page fails alone. Pure: the transaction is a function the test
// controls.
import { describe, expect, it } from 'vitest';
import { PageRecorder, type RecordablePage } from '../../../src/services/documents/page-recorder.js';

interface Page extends RecordablePage {
  name: string;
}

const page = (name: string, options: Partial<Page> = {}): Page => ({ name, crawlId: 'c', fingerprint: name, alone: false, ...options });

/** A recorder whose transactions wait until the test ends them. */
function controlled(options: ConstructorParameters<typeof PageRecorder>[1] = {}) {
  const batches: { pages: string[]; end: (error?: Error) => void }[] = [];
  const recorder = new PageRecorder<Page, string>(
    (pages) =>
      new Promise<string[]>((resolve, reject) => {
        batches.push({ pages: pages.map((p) => p.name), end: (error) => (error ? reject(error) : resolve(pages.map((p) => `recorded ${p.name}`))) });
      }),
    options,
  );
  return { recorder, batches };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('PageRecorder', () => {
  it('records a page alone at once, and the pages that arrive meanwhile together next', async () => {
    const { recorder, batches } = controlled({ maxBatchesInFlight: 1 });
    const first = recorder.record(page('a'));
    const rest = ['b', 'c', 'd'].map((name) => recorder.record(page(name)));
    await tick();
    expect(batches.map((batch) => batch.pages)).toEqual([['a']]);
    batches[0]!.end();
    expect(await first).toBe('recorded a');
    await tick();
    expect(batches.map((batch) => batch.pages)).toEqual([['a'], ['b', 'c', 'd']]);
    batches[1]!.end();
    expect(await Promise.all(rest)).toEqual(['recorded b', 'recorded c', 'recorded d']);
  });

  it('runs up to maxBatchesInFlight transactions of a crawl at once, each at most maxPagesPerBatch pages', async () => {
    const { recorder, batches } = controlled({ maxBatchesInFlight: 2, maxPagesPerBatch: 2 });
    const all = ['a', 'b', 'c', 'd', 'e'].map((name) => recorder.record(page(name)));
    await tick();
    // a and b went at once, each alone, taking both slots; the others wait for a slot.
    expect(batches.map((batch) => batch.pages)).toEqual([['a'], ['b']]);
    batches[0]!.end();
    await tick();
    expect(batches.map((batch) => batch.pages)).toEqual([['a'], ['b'], ['c', 'd']]);
    batches[1]!.end();
    await tick();
    expect(batches.map((batch) => batch.pages)).toEqual([['a'], ['b'], ['c', 'd'], ['e']]);
    batches[2]!.end();
    batches[3]!.end();
    expect(await Promise.all(all)).toHaveLength(5);
  });

  it('keeps crawls apart, two pages of one URL apart, and a page marked alone alone', async () => {
    const { recorder, batches } = controlled({ maxBatchesInFlight: 1 });
    const all = [
      recorder.record(page('first')),
      recorder.record(page('x1', { fingerprint: 'x' })),
      recorder.record(page('y')),
      recorder.record(page('x2', { fingerprint: 'x' })),
      recorder.record(page('listing', { alone: true })),
      recorder.record(page('after')),
      recorder.record(page('other crawl', { crawlId: 'd' })),
    ];
    await tick();
    expect(batches.map((batch) => batch.pages)).toEqual([['first'], ['other crawl']]);
    for (let round = 0; round < 5; round++) {
      batches.filter((batch) => !('done' in batch)).forEach((batch) => Object.assign(batch, { done: true }).end());
      await tick();
    }
    expect(batches.map((batch) => batch.pages)).toEqual([['first'], ['other crawl'], ['x1', 'y'], ['x2'], ['listing'], ['after']]);
    expect(await Promise.all(all)).toHaveLength(7);
  });

  it('starts a page marked alone only after the batches before it commit, and the pages after it only after it', async () => {
    const { recorder, batches } = controlled({ maxBatchesInFlight: 2 });
    const all = [recorder.record(page('before')), recorder.record(page('listing', { alone: true })), recorder.record(page('after'))];
    await tick();
    // Two slots, but the listing waits for 'before'.
    expect(batches.map((batch) => batch.pages)).toEqual([['before']]);
    batches[0]!.end();
    await tick();
    expect(batches.map((batch) => batch.pages)).toEqual([['before'], ['listing']]);
    // 'after' waits for the listing, a slot free or not.
    await tick();
    expect(batches).toHaveLength(2);
    batches[1]!.end();
    await tick();
    expect(batches.map((batch) => batch.pages)).toEqual([['before'], ['listing'], ['after']]);
    batches[2]!.end();
    expect(await Promise.all(all)).toEqual(['recorded before', 'recorded listing', 'recorded after']);
  });

  it('records a failed batch again page by page: the bad page fails alone', async () => {
    const tried: string[][] = [];
    const recorder = new PageRecorder<Page, string>(async (pages) => {
      tried.push(pages.map((p) => p.name));
      if (pages.some((p) => p.name === 'bad')) throw new Error(`cannot record ${pages.map((p) => p.name).join('+')}`);
      return pages.map((p) => `recorded ${p.name}`);
    }, { maxBatchesInFlight: 1 });
    const first = recorder.record(page('first'));
    const rest = ['good', 'bad', 'also good'].map((name) => recorder.record(page(name)));
    await first;
    const outcomes = await Promise.allSettled(rest);
    expect(tried).toEqual([['first'], ['good', 'bad', 'also good'], ['good'], ['bad'], ['also good']]);
    expect(outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : String(outcome.reason)))).toEqual([
      'recorded good',
      'Error: cannot record bad',
      'recorded also good',
    ]);
  });

  it('records a batch that met another transaction (a deadlock) again whole, and splits it only when that keeps failing', async () => {
    const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    const tried: string[][] = [];
    let deadlocks = 1;
    const recorder = new PageRecorder<Page, string>(
      async (pages) => {
        tried.push(pages.map((p) => p.name));
        if (pages.length > 1 && deadlocks-- > 0) throw deadlock;
        return pages.map((p) => `recorded ${p.name}`);
      },
      { maxBatchesInFlight: 1, isTransientFailure: (error) => (error as { code?: string }).code === '40P01' },
    );
    const first = recorder.record(page('first'));
    const rest = ['b', 'c'].map((name) => recorder.record(page(name)));
    await first;
    expect(await Promise.all(rest)).toEqual(['recorded b', 'recorded c']);
    expect(tried).toEqual([['first'], ['b', 'c'], ['b', 'c']]);

    // Deadlocked every time: maxWholeRetries whole tries more, then page by page.
    tried.length = 0;
    deadlocks = Number.POSITIVE_INFINITY;
    const stubborn = new PageRecorder<Page, string>(
      async (pages) => {
        tried.push(pages.map((p) => p.name));
        if (pages.length > 1) throw deadlock;
        return pages.map((p) => `recorded ${p.name}`);
      },
      { maxBatchesInFlight: 1, maxWholeRetries: 2, isTransientFailure: () => true },
    );
    const head = stubborn.record(page('head'));
    const pair = ['x', 'y'].map((name) => stubborn.record(page(name)));
    await head;
    expect(await Promise.all(pair)).toEqual(['recorded x', 'recorded y']);
    expect(tried).toEqual([['head'], ['x', 'y'], ['x', 'y'], ['x', 'y'], ['x'], ['y']]);
  });

  it('refuses limits that are not whole numbers of at least one, by name', () => {
    expect(() => new PageRecorder(async () => [], { maxWholeRetries: -1 })).toThrow(/maxWholeRetries must be a whole number >= 0, got -1/);
    expect(() => new PageRecorder(async () => [], { maxPagesPerBatch: 0 })).toThrow(/maxPagesPerBatch must be a whole number >= 1, got 0/);
    expect(() => new PageRecorder(async () => [], { maxBatchesInFlight: 1.5 })).toThrow(/maxBatchesInFlight must be a whole number >= 1, got 1.5/);
  });
});
