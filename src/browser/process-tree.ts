import { readdir, readFile } from 'node:fs/promises';

/**
 * CPU and memory of a browser, read from /proc for every process of its process group (the
 * browser, its zygotes, renderers, GPU and network processes). Linux only; elsewhere the figures
 * are 0.
 */

/** The kernel's USER_HZ: /proc reports CPU times in these ticks (100 on every Linux architecture we run on). */
const TICKS_PER_SECOND = 100;

export interface ProcessGroupFigures {
  /** Live processes in the group. */
  processes: number;
  /**
   * CPU time of the group's live processes and of the children they reaped (utime, stime,
   * cutime, cstime), ms: a renderer that exited still counts in the zygote that reaped it.
   */
  cpuMs: number;
  /** Proportional set size summed over the group, bytes: shared pages counted once overall. */
  pssBytes: number;
}

/** The figures of process group `pgid` now; `withMemory` reads smaps_rollup too (costlier). */
export async function processGroupFigures(pgid: number, withMemory: boolean): Promise<ProcessGroupFigures> {
  const figures: ProcessGroupFigures = { processes: 0, cpuMs: 0, pssBytes: 0 };
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return figures;
  }
  await Promise.all(
    entries.map(async (entry) => {
      if (!/^\d+$/.test(entry)) return;
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => undefined);
      if (stat === undefined) return;
      // Fields after the command, which may hold spaces and parentheses: state is field 3.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid || fields[0] === 'Z') return;
      figures.processes += 1;
      const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
      if (Number.isFinite(ticks)) figures.cpuMs += (ticks * 1000) / TICKS_PER_SECOND;
      if (!withMemory) return;
      const rollup = await readFile(`/proc/${entry}/smaps_rollup`, 'utf8').catch(() => '');
      const pss = /^Pss:\s+(\d+) kB/m.exec(rollup);
      if (pss) figures.pssBytes += Number(pss[1]) * 1024;
    }),
  );
  return figures;
}

/** Live (not zombie) processes whose command line mentions `marker` (a browser's own profile folder). */
export async function livePidsMentioning(marker: string): Promise<number[]> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return [];
  }
  const pids: number[] = [];
  await Promise.all(
    entries.map(async (entry) => {
      if (!/^\d+$/.test(entry) || Number(entry) === process.pid) return;
      const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
      if (cmdline.includes(marker)) pids.push(Number(entry));
    }),
  );
  return pids;
}
