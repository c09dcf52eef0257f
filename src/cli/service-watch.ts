/**
 * Watches the services a crawl needs besides Temporal (whose outages the client calls meet
 * themselves: client-outages.ts), so that the progress line can say which one is unreachable and
 * since when. The crawl does not wait for this: activities retry through an outage on their own.
 */
import { postgresAnswers } from '../stack/postgres-cluster.js';
import { s3Client, type S3Connection } from '../stack/minio-server.js';

/** A service's outage as the watch saw it: since its first failed probe. */
export interface ServiceOutage {
  service: string;
  sinceMs: number;
  error: string;
}

export interface ServiceWatchOptions {
  /** Between probes, ms. Default 5_000. */
  intervalMs?: number;
  /** A probe not answered in this long failed, ms. Default 3_000. */
  probeTimeoutMs?: number;
}

export type ServiceProbe = (timeoutMs: number) => Promise<void>;

export class ServiceWatch {
  private readonly outages = new Map<string, ServiceOutage>();
  private timer: NodeJS.Timeout | undefined;
  private probing = false;
  private readonly intervalMs: number;
  private readonly probeTimeoutMs: number;

  constructor(
    private readonly probes: Record<string, ServiceProbe>,
    /** Called when a service goes down or comes back, with every outage now. */
    private readonly onChange: (outages: ServiceOutage[]) => void,
    options: ServiceWatchOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 5_000;
    this.probeTimeoutMs = options.probeTimeoutMs ?? 3_000;
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
          try {
            await withTimeout(probe(this.probeTimeoutMs), this.probeTimeoutMs, service);
            changed = this.outages.delete(service) || changed;
          } catch (error) {
            if (this.outages.has(service)) return;
            this.outages.set(service, { service, sinceMs: Date.now(), error: error instanceof Error ? error.message : String(error) });
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
    timer = setTimeout(() => reject(new Error(`${service} did not answer in ${timeoutMs} ms`)), timeoutMs);
  });
  work.catch(() => undefined);
  return Promise.race([work, timedOut]).finally(() => clearTimeout(timer));
}
