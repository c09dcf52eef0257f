import { seededRandom } from './random.js';

const MS_PER_DAY = 86_400_000;

/** The parameters of one page's change process (the 'changing' behaviour's fields). */
export interface ChangeProcessOptions {
  /** Mean changes per simulated day; 0 means the page never changes. */
  ratePerDay: number;
  seed: number;
}

/**
 * Change times of a Poisson process in simulated ms since the web started, extended lazily: the
 * server and a freshness benchmark that knows the true rates see the same timeline for a seed.
 */
export class ChangeTimeline {
  private readonly times: number[] = [];
  private readonly random: () => number;
  private readonly ratePerMs: number;
  private horizonMs = 0;

  constructor(options: ChangeProcessOptions) {
    if (!(options.ratePerDay >= 0) || !Number.isFinite(options.ratePerDay)) {
      throw new RangeError(`ChangeTimeline: ratePerDay must be a finite number >= 0, got ${options.ratePerDay}`);
    }
    this.random = seededRandom(options.seed);
    this.ratePerMs = options.ratePerDay / MS_PER_DAY;
  }

  /** Number of changes at or before `simMs`: the content version. */
  versionAt(simMs: number): number {
    this.extendTo(simMs);
    let low = 0;
    let high = this.times.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.times[mid] ?? Infinity) <= simMs) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** Simulated ms of the `version`-th change; 0 for version 0 (the content at start). */
  changedAtMs(version: number): number {
    return version === 0 ? 0 : (this.times[version - 1] ?? 0);
  }

  /** All change times up to `simMs`, inclusive. */
  changesUntil(simMs: number): number[] {
    return this.times.slice(0, this.versionAt(simMs));
  }

  private extendTo(simMs: number): void {
    if (this.ratePerMs === 0) return;
    while (this.horizonMs <= simMs) {
      // Exponential inter-arrival times; 1 - u keeps log() away from 0.
      this.horizonMs += -Math.log(1 - this.random()) / this.ratePerMs;
      this.times.push(this.horizonMs);
    }
  }
}

/** Validators a 'changing' page answers with, derived from its version. */
export interface ChangeValidators {
  etag: string;
  /** Epoch ms of the last change in real time, floored to the second (HTTP-date resolution). */
  lastModifiedMs: number;
}

export function changeValidators(seed: number, version: number, changedAtSimMs: number, startedAtMs: number, timeScale: number): ChangeValidators {
  const realMs = startedAtMs + changedAtSimMs / timeScale;
  return { etag: `"c${seed >>> 0}-v${version}"`, lastModifiedMs: Math.floor(realMs / 1000) * 1000 };
}

/**
 * RFC 9110 §13.1: If-None-Match wins when present; otherwise If-Modified-Since compares at second
 * resolution. Changes within one second are invisible to If-Modified-Since: tests that need exact
 * change detection should send the ETag.
 */
export function isNotModified(validators: ChangeValidators, ifNoneMatch: string | undefined, ifModifiedSince: string | undefined): boolean {
  if (ifNoneMatch !== undefined) {
    if (ifNoneMatch.trim() === '*') return true;
    const strip = (tag: string): string => tag.trim().replace(/^W\//, '');
    const wanted = strip(validators.etag);
    return ifNoneMatch.split(',').some((tag) => strip(tag) === wanted);
  }
  if (ifModifiedSince !== undefined) {
    const sinceMs = Date.parse(ifModifiedSince);
    return Number.isFinite(sinceMs) && validators.lastModifiedMs <= sinceMs;
  }
  return false;
}
