import { FailuresInputError } from './errors.js';
import { POISON_ATTEMPT_LIMIT, lookupFailurePolicy } from './failure-policies.js';

/** Stages at which one URL's work runs and can fail repeatedly (docs/design.md, "Poison URLs": fetch, parse, store, and its render). */
export const POISON_STAGES = ['fetch', 'parse', 'store', 'render'] as const;
export type PoisonStage = (typeof POISON_STAGES)[number];

/** One failed attempt, kept for the dead-letter row. Plain JSON. */
export interface StageFailureRecord {
  stage: PoisonStage;
  /** A FetchFailureType, or any other error name (e.g. a Temporal timeout, a parser exception). */
  failureType: string;
  /** When the attempt failed, ms since epoch. */
  atMs: number;
  /** Short free text (an error message); cut to MAX_FAILURE_DETAIL_CHARS because it may come from a server. */
  detail?: string;
}

/** Per URL fingerprint: failures counted per stage, and the recent history. Plain JSON. */
export interface PoisonLedger {
  failuresByStage: Partial<Record<PoisonStage, number>>;
  /** Oldest first, at most maxHistoryEntries. */
  history: StageFailureRecord[];
}

export interface PoisonLedgerOptions {
  /** Counted failures at one stage that dead-letter the URL. Default POISON_ATTEMPT_LIMIT (5). */
  attemptLimit?: number;
  /** History entries kept, oldest dropped first. Default 20. */
  maxHistoryEntries?: number;
}

export interface StageFailureVerdict {
  ledger: PoisonLedger;
  /** Counted failures at this stage so far, this one included. */
  failuresAtStage: number;
  /** True when the URL must move to the dead-letter table now. */
  deadLetter: boolean;
}

export const MAX_FAILURE_DETAIL_CHARS = 500;
const DEFAULT_MAX_HISTORY_ENTRIES = 20;

export function emptyPoisonLedger(): PoisonLedger {
  return { failuresByStage: {}, history: [] };
}

/**
 * Whether a failure counts toward the poison budget. Our own types say so in FAILURE_POLICIES;
 * anything else (a worker crash, an activity timeout, a parser exception) counts, because that is
 * exactly what a poison URL looks like (docs/design.md, "Poison URLs").
 */
export function countsTowardPoison(failureType: string): boolean {
  return lookupFailurePolicy(failureType)?.countsTowardPoison ?? true;
}

/**
 * Records one failed attempt. The history always grows; the stage's count grows only when the
 * failure countsTowardPoison. The verdict dead-letters the URL when the count reaches the limit.
 */
export function recordStageFailure(ledger: PoisonLedger, record: StageFailureRecord, options: PoisonLedgerOptions = {}): StageFailureVerdict {
  const attemptLimit = options.attemptLimit ?? POISON_ATTEMPT_LIMIT;
  const maxHistoryEntries = options.maxHistoryEntries ?? DEFAULT_MAX_HISTORY_ENTRIES;
  requirePositiveInteger('options.attemptLimit', attemptLimit);
  requirePositiveInteger('options.maxHistoryEntries', maxHistoryEntries);

  const previous = ledger.failuresByStage[record.stage] ?? 0;
  const failuresAtStage = countsTowardPoison(record.failureType) ? previous + 1 : previous;
  const entry: StageFailureRecord = { stage: record.stage, failureType: record.failureType, atMs: record.atMs };
  if (record.detail !== undefined) entry.detail = record.detail.slice(0, MAX_FAILURE_DETAIL_CHARS);
  const history = [...ledger.history, entry].slice(-maxHistoryEntries);
  return {
    ledger: { failuresByStage: { ...ledger.failuresByStage, [record.stage]: failuresAtStage }, history },
    failuresAtStage,
    deadLetter: failuresAtStage >= attemptLimit,
  };
}

/** A success at a stage proves the URL is not poison there: its count restarts, the history stays. */
export function recordStageSuccess(ledger: PoisonLedger, stage: PoisonStage): PoisonLedger {
  const failuresByStage = { ...ledger.failuresByStage };
  delete failuresByStage[stage];
  return { failuresByStage, history: ledger.history };
}

function requirePositiveInteger(field: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new FailuresInputError('FAILURES_LEDGER_OPTIONS_INVALID', field, value, 'pass an integer >= 1 or leave it out for the default');
  }
}
