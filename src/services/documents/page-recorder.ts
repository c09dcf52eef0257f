/**
 * Group commit for parsed pages: the pages a worker parses while a transaction is under way are
 * recorded together by the next one, so a page costs a share of a transaction's statements
 * (record-pages.ts) instead of a dozen of its own. Each statement, Postgres parses, plans and runs,
 * and the worker writes and reads it on a socket: statements are most of the CPU a page costs
 * besides the fetch (docs/storage-and-recrawl.md, "Parses recorded in batches"). A page alone, when nothing is under way, is recorded at once: the
 * batches grow only as fast as pages arrive.
 *
 * A batch holds pages of one crawl, no two of one URL. A page marked `alone` (a listing page,
 * whose reading orders the visits after it) is recorded in a batch of its own, once the batches
 * before it have committed and before any after it starts. A batch that fails
 * is recorded again page by page, so one bad page fails alone and its neighbours commit.
 */

export interface RecordablePage {
  crawlId: string;
  fingerprint: string;
  /** Recorded in a transaction of its own, after the pages submitted before it. */
  alone: boolean;
}

export interface PageRecorderOptions {
  /** Pages one transaction records at most. Default 32. */
  maxPagesPerBatch?: number;
  /** Transactions under way at once per crawl; more pages wait and join the next. Default 2. */
  maxBatchesInFlight?: number;
  /**
   * Whether a batch's failure says nothing about its pages (a deadlock with another batch): such a
   * batch is recorded again whole, up to maxWholeRetries times, before it is split page by page.
   * Default: never.
   */
  isTransientFailure?: (error: unknown) => boolean;
  /** Whole retries of a batch that failed transiently. Default 3. */
  maxWholeRetries?: number;
}

export const DEFAULT_MAX_PAGES_PER_BATCH = 32;
export const DEFAULT_MAX_BATCHES_IN_FLIGHT = 2;
export const DEFAULT_MAX_WHOLE_RETRIES = 3;

interface Waiting<P, R> {
  page: P;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

interface CrawlQueue<P, R> {
  waiting: Waiting<P, R>[];
  inFlight: number;
  /** A page marked alone is being recorded: nothing else of the crawl starts until it commits. */
  aloneInFlight: boolean;
}

export class PageRecorder<P extends RecordablePage, R> {
  private readonly maxPagesPerBatch: number;
  private readonly maxBatchesInFlight: number;
  private readonly isTransientFailure: (error: unknown) => boolean;
  private readonly maxWholeRetries: number;
  private readonly queues = new Map<string, CrawlQueue<P, R>>();

  /** @param recordBatch records pages of one crawl in one transaction, a result per page in order, or fails as a whole. */
  constructor(
    private readonly recordBatch: (pages: P[]) => Promise<R[]>,
    options: PageRecorderOptions = {},
  ) {
    this.maxPagesPerBatch = positiveWhole('maxPagesPerBatch', options.maxPagesPerBatch ?? DEFAULT_MAX_PAGES_PER_BATCH);
    this.maxBatchesInFlight = positiveWhole('maxBatchesInFlight', options.maxBatchesInFlight ?? DEFAULT_MAX_BATCHES_IN_FLIGHT);
    this.isTransientFailure = options.isTransientFailure ?? (() => false);
    this.maxWholeRetries = options.maxWholeRetries ?? DEFAULT_MAX_WHOLE_RETRIES;
    if (!Number.isSafeInteger(this.maxWholeRetries) || this.maxWholeRetries < 0) {
      throw new Error(`PageRecorderOptions.maxWholeRetries must be a whole number >= 0, got ${this.maxWholeRetries}`);
    }
  }

  /** Records the page with the next batch of its crawl; resolves with its result once committed. */
  record(page: P): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      let queue = this.queues.get(page.crawlId);
      if (!queue) this.queues.set(page.crawlId, (queue = { waiting: [], inFlight: 0, aloneInFlight: false }));
      queue.waiting.push({ page, resolve, reject });
      this.startBatches(page.crawlId, queue);
    });
  }

  private startBatches(crawlId: string, queue: CrawlQueue<P, R>): void {
    while (queue.inFlight < this.maxBatchesInFlight && queue.waiting.length > 0 && !queue.aloneInFlight) {
      // A page marked alone waits for the batches before it to commit, and the pages after it for it.
      const alone = queue.waiting[0]!.page.alone;
      if (alone && queue.inFlight > 0) break;
      const batch = this.takeBatch(queue);
      queue.inFlight += 1;
      queue.aloneInFlight = alone;
      void this.run(batch).finally(() => {
        queue.inFlight -= 1;
        if (alone) queue.aloneInFlight = false;
        if (queue.inFlight === 0 && queue.waiting.length === 0) this.queues.delete(crawlId);
        else this.startBatches(crawlId, queue);
      });
    }
  }

  /** The longest run from the queue's head that one transaction may record. */
  private takeBatch(queue: CrawlQueue<P, R>): Waiting<P, R>[] {
    const first = queue.waiting[0]!;
    if (first.page.alone) return queue.waiting.splice(0, 1);
    const urls = new Set<string>();
    let count = 0;
    for (const { page } of queue.waiting) {
      if (count === this.maxPagesPerBatch || page.alone || urls.has(page.fingerprint)) break;
      urls.add(page.fingerprint);
      count += 1;
    }
    return queue.waiting.splice(0, count);
  }

  private async run(batch: Waiting<P, R>[]): Promise<void> {
    try {
      const results = await this.recordWhole(batch.map(({ page }) => page));
      batch.forEach(({ resolve }, index) => resolve(results[index]!));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      // One page may have failed them all: each alone, in order, so only it fails.
      for (const waiting of batch) {
        await this.recordBatch([waiting.page]).then(
          (results) => waiting.resolve(results[0]!),
          (alone: unknown) => waiting.reject(alone),
        );
      }
    }
  }

  /**
   * One transaction for the batch, tried again whole after a transient failure: split page by page,
   * 32 pages cost 32 transactions in a row, and every host whose page is among them waits for them.
   */
  private async recordWhole(pages: P[]): Promise<R[]> {
    for (let retry = 0; ; retry++) {
      try {
        return await this.recordBatch(pages);
      } catch (error) {
        if (retry >= this.maxWholeRetries || !this.isTransientFailure(error)) throw error;
        // Apart in time, so the two batches that deadlocked do not meet again at once.
        await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * (retry + 1)));
      }
    }
  }
}

function positiveWhole(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`PageRecorderOptions.${name} must be a whole number >= 1, got ${value}`);
  return value;
}
