/**
 * Fetched bodies a fetch burst keeps in memory for its own parses, so a page it just stored is
 * not read back from the object store and gunzipped again (a request and a decompression per
 * page). The budget is per process and bounded: a body that does not fit is parsed from the
 * object store as before, so memory stays bounded however many bursts run at once.
 */

export interface HeldBodyBudgetOptions {
  /** Decoded body bytes held at once by this process. Default 64 MiB. */
  maxHeldBytes?: number;
  /** Largest single body held; larger ones are read back from the store. Default 1 MiB. */
  maxBodyBytes?: number;
}

export const DEFAULT_MAX_HELD_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MAX_HELD_BODY_BYTES = 1024 * 1024;

/** A body held under the budget; release() gives its bytes back (once; later calls do nothing). */
export interface HeldBody {
  readonly bytes: Buffer;
  release(): void;
}

export class HeldBodyBudget {
  private heldBytes = 0;
  readonly maxHeldBytes: number;
  readonly maxBodyBytes: number;

  constructor(options: HeldBodyBudgetOptions = {}) {
    this.maxHeldBytes = options.maxHeldBytes ?? DEFAULT_MAX_HELD_BYTES;
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_HELD_BODY_BYTES;
  }

  /** Whether a body of this many bytes may still be collected (it is held only if hold() accepts it). */
  mayHold(bytes: number): boolean {
    return bytes <= this.maxBodyBytes && this.heldBytes + bytes <= this.maxHeldBytes;
  }

  /** The longest body hold() could take now: worth collecting a body only up to this. */
  roomForOneBody(): number {
    return Math.max(0, Math.min(this.maxBodyBytes, this.maxHeldBytes - this.heldBytes));
  }

  /** Holds the bytes if they fit, else undefined (the caller reads the body from the store). */
  hold(bytes: Buffer): HeldBody | undefined {
    if (!this.mayHold(bytes.length)) return undefined;
    this.heldBytes += bytes.length;
    let released = false;
    return {
      bytes,
      release: () => {
        if (released) return;
        released = true;
        this.heldBytes -= bytes.length;
      },
    };
  }

  /** Bytes held now. */
  get bytesHeld(): number {
    return this.heldBytes;
  }
}
