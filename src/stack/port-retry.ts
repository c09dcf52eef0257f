import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { StackError } from './stack-error.js';

export interface StartOnFreePortsOptions<T> {
  /** Ports each attempt needs. */
  count: number;
  /** Ports to keep when still free, slot by slot (a restarted service keeps its URL); first attempt only. */
  preferredPorts: readonly (number | undefined)[];
  /** Hands out ports no other service of this start was given. */
  claimPorts: (count: number, preferredPorts: readonly (number | undefined)[]) => Promise<number[]>;
  /** The service's log, appended to by every attempt: a bind failure is read from what the attempt wrote. */
  logFile: string;
  /** Starts the service on `ports`, resolves once it answers; throws a STACK_START_FAILED StackError when it exited. */
  start: (ports: number[]) => Promise<T>;
  /**
   * Whether the log a failed attempt appended says the service gave up on a start that another
   * start on the same ports can finish: the Temporal dev server exits when its own start-up
   * deadline passes while it works through what its stored workflows left due. Default: never.
   */
  startMayCatchUp?: (appendedLog: string) => boolean;
  /** Attempts before the last failure is thrown. Default: 3. */
  maxAttempts?: number;
  /** Told before each retry: why, and the ports the failed attempt was given. */
  onRetry?: (retry: StartRetry) => void;
}

/** Why a start is tried again: a port taken in between (other ports), or a start-up that ran out of time (the same ports). */
export interface StartRetry {
  reason: 'port-taken' | 'start-timed-out';
  ports: number[];
}

/**
 * Starts a service on free ports, and again on other ports when it exited because one of them was
 * taken in between. A free port is only free when it is checked: the Temporal dev server binds a
 * handful of internal ports of its own choosing at start, and any other program on the machine
 * may bind one too, so a service started beside it can lose its port. A start the service itself
 * timed out (startMayCatchUp) goes again on the same ports. Other failures are thrown as they are.
 */
export async function startOnFreePorts<T>(options: StartOnFreePortsOptions<T>): Promise<T> {
  const maxAttempts = options.maxAttempts ?? 3;
  let preferredPorts = options.preferredPorts;
  // The ports of an attempt whose start timed out: still ours, its process has exited.
  let samePorts: number[] | undefined;
  for (let attempt = 1; ; attempt++) {
    const ports = samePorts ?? (await options.claimPorts(options.count, preferredPorts));
    samePorts = undefined;
    const logOffset = fileSize(options.logFile);
    try {
      return await options.start(ports);
    } catch (error) {
      const exited = error instanceof StackError && error.code === 'STACK_START_FAILED';
      if (attempt >= maxAttempts || !exited) throw error;
      if (logReportsPortInUse(options.logFile, logOffset)) {
        options.onRetry?.({ reason: 'port-taken', ports });
        preferredPorts = [];
      } else if (options.startMayCatchUp?.(readFrom(options.logFile, logOffset)) === true) {
        options.onRetry?.({ reason: 'start-timed-out', ports });
        samePorts = ports;
      } else {
        throw error;
      }
    }
  }
}

/** True when what was appended to logFile from byte `fromByte` on reports an address already in use. */
export function logReportsPortInUse(logFile: string, fromByte: number): boolean {
  // Go's "bind: address already in use", MinIO's "Specified port is already in use",
  // Postgres' "could not bind IPv4 address ...: Address already in use", Node's EADDRINUSE.
  return /already in use|EADDRINUSE/i.test(readFrom(logFile, fromByte));
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** At most the last 64 KiB appended after fromByte: a bind failure is reported at start. */
function readFrom(path: string, fromByte: number): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return '';
  }
  try {
    const end = statSync(path).size;
    const start = Math.max(fromByte, end - 64 * 1024);
    if (end <= start) return '';
    const buffer = Buffer.alloc(end - start);
    const read = readSync(fd, buffer, 0, buffer.length, start);
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
