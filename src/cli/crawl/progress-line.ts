// The line `crawler crawl` keeps on stderr while it waits: the crawl's counts, what it waits for,
// and what the CLI itself meets (a service outage).
import type { CrawlStatus } from '../../contracts/status.js';
import { describeCrawlWaits, describeRenders } from '../../contracts/describe-waits.js';

/** One status line, rewritten in place on a terminal, printed every few seconds otherwise. */
export class ProgressLine {
  private lastPrintedMs = 0;
  private shown = false;
  /** What the CLI itself meets (a service outage), by source; each printed when it changes, and kept on the line. */
  private readonly notes = new Map<string, string>();
  constructor(private readonly tty: boolean) {}

  /** Sets or clears (undefined) the note of one source: 'temporal', 'services'. */
  note(source: string, text: string | undefined): void {
    if (text === this.notes.get(source)) return;
    if (text === undefined) {
      this.notes.delete(source);
      return;
    }
    this.notes.set(source, text);
    process.stderr.write(`${this.tty && this.shown ? '\r\x1b[2K' : ''}${text}\n`);
    this.shown = false;
  }

  show(status: CrawlStatus): void {
    const c = status.counts;
    const waits = describeCrawlWaits(status.waits);
    const renders = describeRenders(status.renders);
    const notes = [...this.notes.values()];
    const line = `${status.state}: fetched ${c.fetched}${c.notModified > 0 ? `, not modified ${c.notModified}` : ''}, in flight ${c.inFlight}, queued ${c.queued}, discovered ${c.discovered}, failed ${c.failed + c.dead}, hosts ${status.activeHosts}${renders ? `; ${renders}` : ''}${waits.length > 0 ? `; waiting: ${waits.join('; ')}` : ''}${notes.length > 0 ? `; ${notes.join('; ')}` : ''}`;
    if (this.tty) {
      process.stderr.write(`\r\x1b[2K${line}`);
      this.shown = true;
    } else if (Date.now() - this.lastPrintedMs > 5000) {
      process.stderr.write(`${line}\n`);
      this.lastPrintedMs = Date.now();
    }
  }

  done(): void {
    if (this.tty && this.shown) process.stderr.write('\n');
  }
}
