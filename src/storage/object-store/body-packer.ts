/**
 * Packs small bodies: the bodies a worker fetches within a short while go to the object store as
 * one object, consecutive gzip members (body-key.ts), instead of one object each. An object per
 * page cost the store a directory, an inode, an fsync and a rename, and the worker a signed
 * request: together a large share of the CPU a page takes (bench/README.md, "Figures behind the defaults").
 * Crawlers that store at scale do the same (WARC files, Nutch segments).
 *
 * A body is stored once: before a pack is sent, the bodies it holds are looked up in the records
 * (one query per pack) and in what this packer sent recently; those found are answered with their
 * existing key (`created: false`: the caller makes sure it still exists once its record commits,
 * body-retention.ts), the others go in the pack (`created: true`, to their first add() only). Two workers packing the same new
 * body at the same moment may both store it; its record keeps one, and the prune reclaims the
 * other copy with its pack once nothing points into it.
 *
 * add() resolves once the pack holding the body is stored, so a record that points at it never
 * commits before the bytes exist. A failed upload fails every add() of its pack.
 */
import { randomBytes } from 'node:crypto';
import { packedBodyKey, packKeyAt } from './body-key.js';

export interface BodyPackerOptions {
  /** A pack is sent once it holds this many gzipped bytes. Default 8 MiB. */
  maxPackBytes?: number;
  /** ...or once its first body has waited this long, ms: what packing adds to a fetch. Default 100. */
  maxWaitMs?: number;
  /** Packs being sent at once; a full pack waits for one of them to finish, so memory stays bounded. Default 4. */
  maxPacksInFlight?: number;
  /**
   * A body this packer stored is answered from memory for this long, ms, not looked up or stored
   * again. Default 600_000: well inside the prune's grace period (1 h), which keeps a pack that young.
   */
  recentBodiesTtlMs?: number;
  /** Recently stored bodies remembered at most (the oldest are forgotten first). Default 100_000. */
  maxRecentBodies?: number;
  /**
   * An upload that has not answered after this long, ms, fails its pack's bodies and frees its slot:
   * a store that stops answering must not hold every fetch of the worker. Default 60_000.
   */
  putTimeoutMs?: number;
}

export const DEFAULT_MAX_PACK_BYTES = 8 * 1024 * 1024;
export const DEFAULT_PACK_WAIT_MS = 100;

/** Where packs go. */
export interface PackStore {
  putPack(key: string, bytes: Buffer): Promise<void>;
}

/** The stored keys of those of `sha256s` (hex) the records already hold a body for. */
export type StoredBodyLookup = (sha256s: readonly string[]) => Promise<Map<string, string>>;

/** Where a body added to the packer is stored, and whether this packer stored it (else it was there before). */
export interface PackedBody {
  key: string;
  created: boolean;
}

interface Waiting {
  sha256: string;
  gzipped: Buffer;
  resolve: (body: PackedBody) => void;
  reject: (error: unknown) => void;
}

/** A body this packer stored or is storing: its answer while on its way, its key once stored. */
type RecentBody = { atMs: number; answer: Promise<PackedBody>; key?: undefined } | { atMs: number; key: string; answer?: undefined };

interface OpenPack {
  waiting: Waiting[];
  bytes: number;
  timer: NodeJS.Timeout | undefined;
}

export class BodyPacker {
  private readonly maxPackBytes: number;
  private readonly maxWaitMs: number;
  private readonly maxPacksInFlight: number;
  private readonly recentBodiesTtlMs: number;
  private readonly maxRecentBodies: number;
  private readonly putTimeoutMs: number;
  private open: OpenPack | undefined;
  private packsInFlight = 0;
  private readonly slotWaiters: (() => void)[] = [];
  /**
   * sha256 -> when the first add() asked, and its answer: the promise while the pack is on its way,
   * then only the key. A settled promise is not kept: it holds the async context it was made in
   * (an activity's, with its task, logger and timers), kilobytes where the key is 64 characters.
   * Map order is insertion order, oldest first.
   */
  private readonly recent = new Map<string, RecentBody>();

  constructor(
    private readonly store: PackStore,
    private readonly lookUpStored: StoredBodyLookup,
    options: BodyPackerOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    this.maxPackBytes = positive('maxPackBytes', options.maxPackBytes ?? DEFAULT_MAX_PACK_BYTES);
    this.maxWaitMs = positive('maxWaitMs', options.maxWaitMs ?? DEFAULT_PACK_WAIT_MS);
    this.maxPacksInFlight = positive('maxPacksInFlight', options.maxPacksInFlight ?? 4);
    this.recentBodiesTtlMs = positive('recentBodiesTtlMs', options.recentBodiesTtlMs ?? 600_000);
    this.maxRecentBodies = positive('maxRecentBodies', options.maxRecentBodies ?? 100_000);
    this.putTimeoutMs = positive('putTimeoutMs', options.putTimeoutMs ?? 60_000);
  }

  /** Stores a gzipped body (one gzip member) whose decoded bytes have SHA-256 `sha256` (hex). */
  add(sha256: string, gzipped: Buffer): Promise<PackedBody> {
    if (!/^[0-9a-f]{64}$/.test(sha256)) return Promise.reject(new Error(`BodyPacker.add: not a SHA-256 hex digest: '${sha256}'`));
    if (gzipped.length === 0) return Promise.reject(new Error(`BodyPacker.add: the gzipped body of ${sha256} is empty; a gzip member has a header at least`));
    const nowMs = this.now();
    const known = this.recent.get(sha256);
    // Only the add() that stored a body answers `created: true`. Another is answered from memory as
    // one stored before: the first's record may never commit, and a prune with a grace shorter than
    // recentBodiesTtlMs may then take the pack, so its caller checks the pack after its commit.
    if (known && nowMs - known.atMs < this.recentBodiesTtlMs) {
      return known.key !== undefined ? Promise.resolve({ key: known.key, created: false }) : known.answer.then(({ key }) => ({ key, created: false }));
    }
    const answer = new Promise<PackedBody>((resolve, reject) => {
      const pack = (this.open ??= { waiting: [], bytes: 0, timer: undefined });
      pack.waiting.push({ sha256, gzipped, resolve, reject });
      pack.bytes += gzipped.length;
      if (pack.bytes >= this.maxPackBytes) this.seal();
      else pack.timer ??= setTimeout(() => this.seal(), this.maxWaitMs);
    });
    this.remember(sha256, answer, nowMs);
    return answer;
  }

  /** Sends what waits now, without waiting out maxWaitMs (tests, shutdown). */
  async flush(): Promise<void> {
    const waiting = this.open?.waiting.map(({ sha256 }) => this.recent.get(sha256)?.answer) ?? [];
    this.seal();
    await Promise.allSettled(waiting);
  }

  /** Bodies remembered now (stored, or on their way): at most maxRecentBodies, none older than recentBodiesTtlMs once another is added. */
  get rememberedBodies(): number {
    return this.recent.size;
  }

  private remember(sha256: string, answer: Promise<PackedBody>, atMs: number): void {
    this.recent.delete(sha256);
    this.recent.set(sha256, { answer, atMs });
    answer.then(
      // Stored: the key alone is kept (set on a present key keeps its place in the order).
      ({ key }) => {
        if (this.recent.get(sha256)?.answer === answer) this.recent.set(sha256, { key, atMs });
      },
      // A failed store is forgotten, so the next add() of the body tries again.
      () => {
        if (this.recent.get(sha256)?.answer === answer) this.recent.delete(sha256);
      },
    );
    // The oldest first: drop those past their time, then any over the count.
    for (const [oldest, { atMs: oldestAtMs }] of this.recent) {
      if (atMs - oldestAtMs < this.recentBodiesTtlMs && this.recent.size <= this.maxRecentBodies) break;
      this.recent.delete(oldest);
    }
  }

  private seal(): void {
    const pack = this.open;
    if (!pack) return;
    this.open = undefined;
    if (pack.timer) clearTimeout(pack.timer);
    void this.send(pack.waiting);
  }

  private async send(waiting: Waiting[]): Promise<void> {
    await this.takeSlot();
    try {
      const stored = await this.lookUpStored([...new Set(waiting.map(({ sha256 }) => sha256))]);
      // One member per new body; a body added twice to this pack shares its first member.
      const members = new Map<string, { offset: number; gzipped: Buffer }>();
      let offset = 0;
      for (const { sha256, gzipped } of waiting) {
        if (stored.has(sha256) || members.has(sha256)) continue;
        members.set(sha256, { offset, gzipped });
        offset += gzipped.length;
      }
      let packKey: string | undefined;
      if (members.size > 0) {
        packKey = packKeyAt(new Date(this.now()), randomBytes(8).toString('hex'));
        await this.putWithin(packKey, Buffer.concat([...members.values()].map(({ gzipped }) => gzipped), offset), members.size);
      }
      for (const { sha256, resolve } of waiting) {
        const existing = stored.get(sha256);
        if (existing !== undefined) {
          resolve({ key: existing, created: false });
        } else {
          const member = members.get(sha256)!;
          resolve({ key: packedBodyKey(packKey!, member.offset, member.gzipped.length), created: true });
        }
      }
    } catch (error) {
      for (const { reject } of waiting) reject(error);
    } finally {
      this.releaseSlot();
    }
  }

  /** An upload abandoned at its timeout may still land: nothing points into it, and the prune takes it. */
  private async putWithin(key: string, bytes: Buffer, bodies: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`storing pack ${key} (${bodies} bodies, ${bytes.length} bytes) got no answer in ${this.putTimeoutMs} ms: is the object store up?`)),
        this.putTimeoutMs,
      );
    });
    const put = this.store.putPack(key, bytes);
    // A put that fails after its timeout has nobody waiting for it.
    put.catch(() => undefined);
    try {
      await Promise.race([put, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async takeSlot(): Promise<void> {
    while (this.packsInFlight >= this.maxPacksInFlight) await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
    this.packsInFlight += 1;
  }

  private releaseSlot(): void {
    this.packsInFlight -= 1;
    this.slotWaiters.shift()?.();
  }
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new Error(`BodyPackerOptions.${name} must be a number > 0, got ${value}`);
  return value;
}
