/**
 * HTML extraction off the event loop. The worker's main thread runs workflow tasks,
 * heartbeats and fetch timers; a 10 MiB page under the parse budget still takes seconds to load,
 * and a page that is slow in some way the parse budget does not count could take longer. So large
 * documents go to a few worker threads, each parse with a wall-clock budget: a thread past it is
 * terminated and replaced, and the page fails as ParseBudgetError PARSE_BUDGET_TIME.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { extractHtmlDocument, type ExtractOptions, type ExtractedDocument } from './html-document.js';
import { THREAD_READY, type ParseThreadReply, type ParseThreadRequest } from './html-parse-messages.js';
import { ParseBudgetError } from './parse-budget.js';

/** Extracts one HTML document; throws ParseBudgetError for a page over its budget. */
export type HtmlExtractor = (html: string, pageUrl: string, options: ExtractOptions) => Promise<ExtractedDocument>;

export interface HtmlParsePoolOptions {
  /** Threads that parse. Default os.availableParallelism() - 1, at least 1: one core stays with the event loop. */
  parseThreads?: number;
  /**
   * Wall-clock budget of one document, from when its thread starts on it (time queued not
   * counted): ten times what the largest page under the parse budget takes
   * (bench/README.md, "Figures behind the defaults"). Default 15,000 ms.
   */
  parseTimeoutMs?: number;
  /**
   * Documents of at most this many characters are parsed on the calling thread: under the depth
   * cap they take milliseconds, less than a queue behind a large page. Default 65,536.
   */
  inThreadMaxChars?: number;
  /** The threads' entry module. Default html-parse-thread.js beside this file; tests point it elsewhere. */
  threadEntry?: URL;
}

/** Stable codes of HtmlParsePoolError; match on these, not on messages. */
export type HtmlParsePoolErrorCode = 'PARSE_POOL_OPTION_INVALID' | 'PARSE_POOL_CLOSED' | 'PARSE_THREAD_FAILED';

/**
 * The pool's own failures: a bad option, a parse asked of a closed pool, a thread that crashed
 * or exited under a page. Not the page's fault as far as we know, so an ordinary parse failure
 * (retried within the poison budget), unlike ParseBudgetError.
 */
export class HtmlParsePoolError extends Error {
  override readonly name = 'HtmlParsePoolError';
  constructor(
    readonly code: HtmlParsePoolErrorCode,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

export const DEFAULT_PARSE_TIMEOUT_MS = 15_000;
export const DEFAULT_IN_THREAD_MAX_CHARS = 64 * 1024;

// From the sources, a plain-JS shim registers tsx for the TypeScript handler; compiled (dist/), the handler is the entry.
const DEFAULT_THREAD_ENTRY = import.meta.url.endsWith('.ts') ? new URL('./html-parse-thread.js', import.meta.url) : new URL('./html-parse-thread-handler.js', import.meta.url);

interface Job {
  request: ParseThreadRequest;
  resolve: (document: ExtractedDocument) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  /** Loaded and listening: a thread's start (a few hundred ms) is not charged to a page's budget. */
  ready: boolean;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
}

/** A pool of parse threads, started on first use; close() ends them. */
export class HtmlParsePool {
  readonly parseThreads: number;
  readonly parseTimeoutMs: number;
  readonly inThreadMaxChars: number;
  private readonly threadEntry: URL;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(options: HtmlParsePoolOptions = {}) {
    this.parseThreads = positiveInteger('parseThreads', options.parseThreads ?? Math.max(1, os.availableParallelism() - 1));
    this.parseTimeoutMs = positiveInteger('parseTimeoutMs', options.parseTimeoutMs ?? DEFAULT_PARSE_TIMEOUT_MS);
    this.inThreadMaxChars = nonNegativeInteger('inThreadMaxChars', options.inThreadMaxChars ?? DEFAULT_IN_THREAD_MAX_CHARS);
    this.threadEntry = options.threadEntry ?? DEFAULT_THREAD_ENTRY;
  }

  /** The pool as an HtmlExtractor (bound: pass it around as a function). */
  readonly extract: HtmlExtractor = (html, pageUrl, options) => {
    if (html.length <= this.inThreadMaxChars) {
      try {
        return Promise.resolve(extractHtmlDocument(html, pageUrl, options));
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    }
    if (this.closed) return Promise.reject(new HtmlParsePoolError('PARSE_POOL_CLOSED', `no parse of ${pageUrl} after the pool closed (the worker shut down)`));
    return new Promise<ExtractedDocument>((resolve, reject) => {
      this.queue.push({ request: { id: this.nextId++, html, pageUrl, options }, resolve, reject });
      this.dispatch();
    });
  };

  /** Ends every thread; parses still queued or running fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new HtmlParsePoolError('PARSE_POOL_CLOSED', `the pool closed before ${job.request.pageUrl} was parsed`));
    const slots = this.slots.splice(0);
    for (const slot of slots) this.fail(slot, new HtmlParsePoolError('PARSE_POOL_CLOSED', 'the pool closed while the page was parsed'));
    await Promise.allSettled(slots.map((slot) => slot.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      if (this.slots.length < Math.min(this.parseThreads, this.queue.length + this.busyThreads())) this.startThread();
      const slot = this.slots.find((candidate) => candidate.ready && candidate.job === undefined);
      if (slot === undefined) return;
      const job = this.queue.shift()!;
      slot.job = job;
      slot.timer = setTimeout(() => this.timeOut(slot), this.parseTimeoutMs);
      slot.worker.postMessage(job.request);
    }
  }

  private startThread(): Slot {
    const worker = new Worker(this.threadEntry);
    // Parse threads never hold the process open on their own: the worker's lifetime does.
    worker.unref();
    const slot: Slot = { worker, ready: false, job: undefined, timer: undefined };
    worker.on('message', (reply: ParseThreadReply | typeof THREAD_READY) => {
      if (reply !== THREAD_READY) return this.settle(slot, reply);
      slot.ready = true;
      this.dispatch();
    });
    worker.on('error', (error) => this.replace(slot, new HtmlParsePoolError('PARSE_THREAD_FAILED', `the parse thread failed: ${error.message}`)));
    worker.on('exit', (code) => this.replace(slot, new HtmlParsePoolError('PARSE_THREAD_FAILED', `the parse thread exited with code ${code}`)));
    this.slots.push(slot);
    return slot;
  }

  private busyThreads(): number {
    return this.slots.filter((slot) => slot.job !== undefined).length;
  }

  private settle(slot: Slot, reply: ParseThreadReply): void {
    const job = slot.job;
    if (job === undefined || job.request.id !== reply.id) return;
    clearTimeout(slot.timer);
    slot.job = undefined;
    slot.timer = undefined;
    if (reply.ok) job.resolve(reply.document);
    else job.reject(reply.budgetCode ? new ParseBudgetError(reply.budgetCode, job.request.pageUrl, reply.message) : new Error(reply.message));
    this.dispatch();
  }

  /** Past the budget the thread cannot be interrupted, only ended: its page fails, a fresh thread takes the queue. */
  private timeOut(slot: Slot): void {
    const url = slot.job?.request.pageUrl ?? '';
    this.fail(slot, new ParseBudgetError('PARSE_BUDGET_TIME', url, `the parse took longer than ${this.parseTimeoutMs} ms`));
    this.drop(slot);
    void slot.worker.terminate();
    this.dispatch();
  }

  /** A thread that errored or exited: its page fails (retryable: the crash may not be the page's), the queue moves on. */
  private replace(slot: Slot, error: Error): void {
    if (!this.slots.includes(slot)) return;
    this.fail(slot, error);
    this.drop(slot);
    // A thread that died before it was ready would die again: the waiting pages fail now rather
    // than wait on a restart loop; the next page tries a fresh thread.
    if (!slot.ready) for (const job of this.queue.splice(0)) job.reject(error);
    else if (!this.closed) this.dispatch();
  }

  private fail(slot: Slot, error: Error): void {
    clearTimeout(slot.timer);
    const job = slot.job;
    slot.job = undefined;
    slot.timer = undefined;
    job?.reject(error);
  }

  private drop(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
  }
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new HtmlParsePoolError('PARSE_POOL_OPTION_INVALID', `${name} must be a positive integer, got ${value}`);
  return value;
}

function nonNegativeInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) throw new HtmlParsePoolError('PARSE_POOL_OPTION_INVALID', `${name} must be a non-negative integer, got ${value}`);
  return value;
}
