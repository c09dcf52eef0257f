import { FrontierInputError } from './errors.js';
import { requireNumber } from './validate.js';

/** Options for {@link RateMeter}. */
export interface RateMeterOptions {
  /** Span the rate is averaged over, > 0 ms. Required: it sets how fast the rate reacts. */
  windowMs: number;
  /** Buckets the window is cut into, an integer >= 1. Default 10; memory is bounded by it. */
  bucketCount?: number;
}

/** Plain-JSON state of a {@link RateMeter}, safe to carry across continue-as-new. */
export interface RateMeterState {
  windowMs: number;
  bucketCount: number;
  /** Time of the first record ever, epoch ms; null before any. Bounds the span at startup. */
  firstRecordMs: number | null;
  /** `[bucketIndex, count]` pairs, ascending, where `bucketIndex = floor(ms / bucketMs)`. */
  buckets: Array<[number, number]>;
}

const CODE = 'FRONTIER_RATE_METER_INVALID';
const DEFAULT_BUCKET_COUNT = 10;

/**
 * Events per second over a sliding window, from bucketed counts: the downstream consume rate that
 * turns a backlog into backlog seconds (docs/design.md, "Backpressure"). Time is always passed in; nothing here
 * reads a clock, so a workflow can own one.
 */
export class RateMeter {
  readonly windowMs: number;
  readonly bucketCount: number;
  readonly #bucketMs: number;
  #firstRecordMs: number | null = null;
  #buckets: Array<[number, number]> = [];

  constructor(options: RateMeterOptions) {
    this.windowMs = requireNumber(CODE, 'options.windowMs', options?.windowMs, { min: 0, minExclusive: true });
    this.bucketCount = requireNumber(CODE, 'options.bucketCount', options.bucketCount ?? DEFAULT_BUCKET_COUNT, { min: 1, integer: true });
    this.#bucketMs = this.windowMs / this.bucketCount;
  }

  /**
   * Counts `count` events at `nowMs`. A time earlier than the newest bucket (a clock step back)
   * is counted in the newest bucket rather than rewriting history.
   */
  record(count: number, nowMs: number): void {
    requireNumber(CODE, 'count', count, { min: 0 });
    requireNumber(CODE, 'nowMs', nowMs);
    if (count === 0) return;
    this.#firstRecordMs ??= nowMs;
    const newest = this.#buckets.at(-1);
    const index = Math.max(Math.floor(nowMs / this.#bucketMs), newest?.[0] ?? Number.NEGATIVE_INFINITY);
    if (newest !== undefined && newest[0] === index) newest[1] += count;
    else this.#buckets.push([index, count]);
    const oldestKept = index - this.bucketCount + 1;
    while ((this.#buckets[0]?.[0] ?? oldestKept) < oldestKept) this.#buckets.shift();
  }

  /**
   * Events per second over the window ending at `nowMs`: the count in the last `bucketCount`
   * buckets divided by the time from the oldest such bucket's start (or the first record, if
   * later) to now. 0 when nothing happened in the window.
   */
  ratePerSecond(nowMs: number): number {
    requireNumber(CODE, 'nowMs', nowMs);
    const currentIndex = Math.floor(nowMs / this.#bucketMs);
    const oldestIndex = currentIndex - this.bucketCount + 1;
    let count = 0;
    for (const [index, n] of this.#buckets) if (index >= oldestIndex && index <= currentIndex) count += n;
    if (count === 0) return 0;
    const windowStartMs = oldestIndex * this.#bucketMs;
    const firstBucketStartMs = Math.floor((this.#firstRecordMs ?? nowMs) / this.#bucketMs) * this.#bucketMs;
    // At least one bucket, so a burst right at startup does not read as an infinite rate.
    const spanMs = Math.max(this.#bucketMs, nowMs - Math.max(windowStartMs, firstBucketStartMs));
    return (count * 1000) / spanMs;
  }

  toJSON(): RateMeterState {
    return {
      windowMs: this.windowMs,
      bucketCount: this.bucketCount,
      firstRecordMs: this.#firstRecordMs,
      buckets: this.#buckets.map(([index, count]) => [index, count]),
    };
  }

  /**
   * Restores a meter from {@link toJSON} output (or its JSON round trip).
   * @throws FrontierInputError `FRONTIER_RATE_METER_INVALID` when the state is malformed.
   */
  static fromJSON(state: RateMeterState): RateMeter {
    if (state === null || typeof state !== 'object') {
      throw new FrontierInputError(CODE, 'state', state, 'pass the object RateMeter.toJSON() returned');
    }
    const meter = new RateMeter({ windowMs: state.windowMs, bucketCount: state.bucketCount });
    if (state.firstRecordMs !== null) meter.#firstRecordMs = requireNumber(CODE, 'state.firstRecordMs', state.firstRecordMs);
    if (!Array.isArray(state.buckets)) {
      throw new FrontierInputError(CODE, 'state.buckets', state.buckets, 'pass an array of [bucketIndex, count] pairs');
    }
    let previous = Number.NEGATIVE_INFINITY;
    meter.#buckets = state.buckets.map((pair, i) => {
      if (!Array.isArray(pair) || pair.length !== 2) {
        throw new FrontierInputError(CODE, `state.buckets[${i}]`, pair, 'pass a [bucketIndex, count] pair');
      }
      const index = requireNumber(CODE, `state.buckets[${i}][0]`, pair[0], { integer: true, min: previous, minExclusive: true });
      const count = requireNumber(CODE, `state.buckets[${i}][1]`, pair[1], { min: 0 });
      previous = index;
      return [index, count];
    });
    return meter;
  }
}
