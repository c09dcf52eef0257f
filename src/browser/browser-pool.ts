import { BrowserProcess, type BrowserLaunchOptions } from './browser-process.js';
import { BrowserError } from './errors.js';

export interface BrowserPoolOptions extends BrowserLaunchOptions {
  /** Renders at once: one browser each, so a crash, a hang or a render's CPU is one browser's. Required, at least 1. */
  slots: number;
  /** A browser is replaced after this many pages (a long-lived browser grows). Default 50. */
  maxPagesPerBrowser?: number;
}

/** A browser lent for one render; give it back with `release`, saying whether it must go. */
export interface BrowserLease {
  readonly process: BrowserProcess;
  /** Pages this browser rendered before this one. */
  readonly pagesBefore: number;
  release(outcome: { replace: boolean }): Promise<void>;
}

interface Slot {
  process: BrowserProcess | undefined;
  pages: number;
  busy: boolean;
}

/**
 * Browsers for a worker's render slots. A slot's browser starts on its first render and is replaced
 * after maxPagesPerBrowser pages, after a crash or a hang (the caller says so), or when it died
 * between renders. close() kills every browser's whole process group.
 */
export class BrowserPool {
  private readonly slots: Slot[];
  private readonly waiting: ((slot: Slot) => void)[] = [];
  private closed = false;
  /** Browsers started over the pool's life (the first of each slot included). */
  launches = 0;

  constructor(private readonly options: BrowserPoolOptions) {
    if (!Number.isSafeInteger(options.slots) || options.slots < 1) throw new RangeError(`BrowserPoolOptions.slots must be an integer >= 1, got ${String(options.slots)}`);
    this.slots = Array.from({ length: options.slots }, () => ({ process: undefined, pages: 0, busy: false }));
  }

  /** Where the browsers' profile folders are made: every process of a browser names its folder. */
  get profileRoot(): string | undefined {
    return this.options.profileRoot;
  }

  /** Browsers running now. */
  get running(): number {
    return this.slots.filter((slot) => slot.process?.alive === true).length;
  }

  /** Main process ids of the running browsers (their process groups). */
  get pids(): number[] {
    return this.slots.flatMap((slot) => (slot.process ? [slot.process.pid] : []));
  }

  /** Waits for a free slot and lends its browser, started or replaced as needed. Throws BrowserError 'BROWSER_UNAVAILABLE' when it cannot start. */
  async acquire(): Promise<BrowserLease> {
    if (this.closed) throw new BrowserError('BROWSER_UNAVAILABLE', 'the browser pool is closed (the worker is stopping)');
    const slot = this.slots.find((candidate) => !candidate.busy) ?? (await new Promise<Slot>((resolve) => this.waiting.push(resolve)));
    slot.busy = true;
    try {
      if (slot.process !== undefined && (!slot.process.alive || slot.pages >= (this.options.maxPagesPerBrowser ?? 50))) await this.retire(slot);
      if (slot.process === undefined) {
        slot.process = await BrowserProcess.launch(this.options);
        this.launches += 1;
      }
    } catch (error) {
      this.free(slot);
      throw error;
    }
    const process = slot.process;
    const pagesBefore = slot.pages;
    let released = false;
    return {
      process,
      pagesBefore,
      release: async ({ replace }) => {
        if (released) return;
        released = true;
        slot.pages += 1;
        if (replace || !process.alive) await this.retire(slot);
        this.free(slot);
      },
    };
  }

  /** Kills every browser; renders under way fail as crashed. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((slot) => this.retire(slot)));
  }

  private async retire(slot: Slot): Promise<void> {
    const process = slot.process;
    slot.process = undefined;
    slot.pages = 0;
    await process?.close();
  }

  private free(slot: Slot): void {
    slot.busy = false;
    const next = this.waiting.shift();
    if (next) {
      slot.busy = true;
      next(slot);
    }
  }
}
