// Memory and CPU of the processes a benchmark run uses, read from /proc (Linux): peak resident
// set size sampled over the run, the kernel's own high-water mark, and CPU seconds spent.
import { readdirSync, readFileSync } from 'node:fs';
import { statTicks } from './child-cpu.js';

export interface TrackedProcess {
  /** What the report calls it: 'worker', 'test web', 'Temporal', 'Postgres', 'MinIO', 'crawlee'. */
  name: string;
  pid: number;
  /** Count the process's descendants too (Postgres forks a backend per connection). Default false. */
  tree?: boolean;
  /** Other processes counted under the same name (a worker split into workflow and activity processes). */
  morePids?: readonly number[];
}

export interface ProcessFigures {
  name: string;
  pid: number;
  processes: number;
  /** Highest sum of VmRSS over the process (tree) seen by the sampler, MB. */
  peakRssMb: number;
  /** Highest sum of Pss (shared pages split between sharers) seen, MB: honest for a process tree. Read every pssEverySamples samples. */
  peakPssMb: number;
  /** VmHWM of the main process: its peak RSS since it started (covers gaps between samples), MB. */
  hwmMb: number;
  /** CPU seconds (user + system) of the tree between start() and stop(). */
  cpuSeconds: number;
}

const CLOCK_TICKS_PER_SECOND = 100;

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** A /proc/<pid>/status size field in kB; 0 when the process is gone. */
export function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readText(`/proc/${pid}/status`) ?? '');
  return match ? Number(match[1]) : 0;
}

function pssKb(pid: number): number {
  const match = /^Pss:\s+(\d+) kB/m.exec(readText(`/proc/${pid}/smaps_rollup`) ?? '');
  return match ? Number(match[1]) : 0;
}

/** utime + stime of one process, in clock ticks (reaped children are not added: they are tracked themselves). */
function cpuTicks(pid: number): number {
  return statTicks(pid)?.own ?? 0;
}

/** pid -> parent pid for every process now alive. */
function parentMap(): Map<number, number> {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readText(`/proc/${entry}/stat`);
    if (stat === undefined) continue;
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    parents.set(Number(entry), ppid);
  }
  return parents;
}

function treeOf(root: number, parents: Map<number, number>): number[] {
  const members = [root];
  for (const [pid, ppid] of parents) {
    for (let up = ppid, hops = 0; up > 1 && hops < 8; up = parents.get(up) ?? 0, hops++) {
      if (up === root) {
        members.push(pid);
        break;
      }
    }
  }
  return members;
}

interface Accumulator {
  tracked: TrackedProcess;
  peakRssKb: number;
  peakPssKb: number;
  processes: number;
  /** Ticks at start per pid, and the last reading per pid (a backend may exit before stop). */
  startTicks: Map<number, number>;
  lastTicks: Map<number, number>;
}

export interface ProcessSamplerOptions {
  /** Between two samples of RSS and CPU, ms. Default 500. */
  intervalMs?: number;
  /**
   * PSS is read at every this many samples (and at the first and last). Default 10. Reading
   * smaps_rollup walks every page table entry of a process: for our crawl's 50 processes every
   * 0.5 s that took a quarter of a core (perf, 2026-12-02), CPU taken from the crawl being
   * measured and far less from Crawlee's one process, so it skewed the ratio against us.
   */
  pssEverySamples?: number;
}

/** Samples the tracked processes every `intervalMs` until stop(). */
export class ProcessSampler {
  private readonly accumulators: Accumulator[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly intervalMs: number;
  private readonly pssEverySamples: number;
  private samples = 0;

  constructor({ intervalMs = 500, pssEverySamples = 10 }: ProcessSamplerOptions = {}) {
    this.intervalMs = intervalMs;
    this.pssEverySamples = pssEverySamples;
  }

  track(processes: readonly TrackedProcess[]): void {
    for (const tracked of processes) {
      this.accumulators.push({ tracked, peakRssKb: 0, peakPssKb: 0, processes: 0, startTicks: new Map(), lastTicks: new Map() });
    }
    this.sample(true);
  }

  start(): void {
    this.timer = setInterval(() => this.sample(false), this.intervalMs);
    this.timer.unref();
  }

  stop(): ProcessFigures[] {
    if (this.timer) clearInterval(this.timer);
    this.sample(false, true);
    return this.accumulators.map((acc) => {
      let ticks = 0;
      for (const [pid, last] of acc.lastTicks) ticks += last - (acc.startTicks.get(pid) ?? 0);
      return {
        name: acc.tracked.name,
        pid: acc.tracked.pid,
        processes: acc.processes,
        peakRssMb: Math.round(acc.peakRssKb / 1024),
        peakPssMb: Math.round(acc.peakPssKb / 1024),
        hwmMb: Math.round(Math.max(...[acc.tracked.pid, ...(acc.tracked.morePids ?? [])].map((pid) => statusKb(pid, 'VmHWM'))) / 1024),
        cpuSeconds: Math.round((ticks / CLOCK_TICKS_PER_SECOND) * 10) / 10,
      };
    });
  }

  private sample(first: boolean, last = false): void {
    const readPss = first || last || this.samples % this.pssEverySamples === 0;
    this.samples += 1;
    const parents = this.accumulators.some((acc) => acc.tracked.tree) ? parentMap() : new Map<number, number>();
    for (const acc of this.accumulators) {
      const pids = acc.tracked.tree ? treeOf(acc.tracked.pid, parents) : [acc.tracked.pid, ...(acc.tracked.morePids ?? [])];
      let rss = 0;
      let pss = 0;
      for (const pid of pids) {
        rss += statusKb(pid, 'VmRSS');
        if (readPss) pss += pssKb(pid);
        const ticks = cpuTicks(pid);
        // A process first seen after start() counts from zero: it was born during the run.
        if (first) acc.startTicks.set(pid, ticks);
        if (ticks > 0) acc.lastTicks.set(pid, ticks);
      }
      acc.peakRssKb = Math.max(acc.peakRssKb, rss);
      acc.peakPssKb = Math.max(acc.peakPssKb, pss);
      acc.processes = Math.max(acc.processes, pids.length);
    }
  }
}
