/**
 * Watches the services a crawl needs besides Temporal (whose outages the client calls meet
 * themselves: client-outages.ts), so that the progress line can say which one is unreachable and
 * since when. The crawl does not wait for this: activities retry through an outage on their own.
 */
import { postgresAnswers } from '../stack/postgres-cluster.js';
import { s3Client, type S3Connection } from '../stack/minio-server.js';

/**
 * A service's outage as the watch saw it: since its first failed probe. 'unreachable': a probe
 * failed (refused, reset, missing bucket); 'not answering': probes timed out, which a service
 * under heavy load also does, so it is reported only after several in a row.
 */
export interface ServiceOutage {
  service: string;
  kind: 'unreachable' | 'not answering';
  sinceMs: number;
  error: string;
}

/** The progress line's words for an outage. */
export function describeOutage(outage: ServiceOutage): string {
  return `${outage.service} ${outage.kind} since ${new Date(outage.sinceMs).toISOString()} (${outage.error}), the crawl waits for it`;
}

export interface ServiceWatchOptions {
  /** Between probes, ms. Default 5_000. */
  intervalMs?: number;
  /** A probe not answered in this long failed, ms. Default 3_000. */
  probeTimeoutMs?: number;
  /**
   * Probes in a row that time out before the service is reported as not answering. Default 3
   * (about 15 s): a 2-core machine under a crawl's load answered a fresh connection's SELECT 1 in
   * over 3 s now and then, and calling that an outage sent users looking for one.
   */
  timeoutsBeforeReport?: number;
}

class ProbeTimeout extends Error {}

export type ServiceProbe = (timeoutMs: number) => Promise<void>;

export class ServiceWatch {
  private readonly outages = new Map<string, ServiceOutage>();
  /** Timed-out probes in a row, and when the first of them began, per service not yet reported. */
  private readonly timeouts = new Map<string, { count: number; sinceMs: number }>();
  private timer: NodeJS.Timeout | undefined;
  private probing = false;
  private readonly intervalMs: number;
  private readonly probeTimeoutMs: number;
  private readonly timeoutsBeforeReport: number;

  constructor(
    private readonly probes: Record<string, ServiceProbe>,
    /** Called when a service goes down or comes back, with every outage now. */
    private readonly onChange: (outages: ServiceOutage[]) => void,
    options: ServiceWatchOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 5_000;
    this.probeTimeoutMs = options.probeTimeoutMs ?? 3_000;
    this.timeoutsBeforeReport = Math.max(1, options.timeoutsBeforeReport ?? 3);
  }

  start(): void {
    this.timer ??= setInterval(() => void this.probeAll(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One round of probes, at most one round at a time; reports a change once. */
  async probeAll(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    try {
      let changed = false;
      await Promise.all(
        Object.entries(this.probes).map(async ([service, probe]) => {
          const startedMs = Date.now();
          try {
            await withTimeout(probe(this.probeTimeoutMs), this.probeTimeoutMs, service);
            this.timeouts.delete(service);
            changed = this.outages.delete(service) || changed;
          } catch (error) {
            if (this.outages.has(service)) return;
            const message = error instanceof Error ? error.message : String(error);
            if (error instanceof ProbeTimeout) {
              const run = this.timeouts.get(service) ?? { count: 0, sinceMs: startedMs };
              run.count += 1;
              this.timeouts.set(service, run);
              if (run.count < this.timeoutsBeforeReport) return;
              this.outages.set(service, { service, kind: 'not answering', sinceMs: run.sinceMs, error: `${message}, ${run.count} probes in a row: overloaded or hung` });
            } else {
              this.outages.set(service, { service, kind: 'unreachable', sinceMs: startedMs, error: message });
            }
            changed = true;
          }
        }),
      );
      if (changed) this.onChange([...this.outages.values()]);
    } finally {
      this.probing = false;
    }
  }
}

/** Connects and asks SELECT 1 (postgresAnswers), on a connection of its own: the worker's pool may be waiting on the same outage. */
export function postgresProbe(url: string): ServiceProbe {
  return async (timeoutMs) => void (await postgresAnswers(url, timeoutMs));
}

/** The crawl's bucket answers. */
export function objectStoreProbe(connection: S3Connection & { bucket: string }): ServiceProbe {
  const client = s3Client(connection);
  return async () => {
    if (!(await client.bucketExists(connection.bucket))) throw new Error(`bucket ${connection.bucket} is missing`);
  };
}

function withTimeout<T>(work: Promise<T>, timeoutMs: number, service: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProbeTimeout(`${service} did not answer in ${timeoutMs} ms`)), timeoutMs);
  });
  work.catch(() => undefined);
  return Promise.race([work, timedOut]).finally(() => clearTimeout(timer));
}
