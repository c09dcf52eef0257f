import { describe, expect, it } from 'vitest';
import {
  MAX_FAILURE_DETAIL_CHARS,
  POISON_ATTEMPT_LIMIT,
  countsTowardPoison,
  emptyPoisonLedger,
  recordStageFailure,
  recordStageSuccess,
  type PoisonLedger,
  type PoisonStage,
} from '../../../../src/domain/failures/index.js';

function fail(ledger: PoisonLedger, stage: PoisonStage, failureType: string, atMs = 1000) {
  return recordStageFailure(ledger, { stage, failureType, atMs });
}

describe('poison ledger', () => {
  it('dead-letters on the 5th counted failure at one stage, not before', () => {
    let ledger = emptyPoisonLedger();
    const verdicts: boolean[] = [];
    for (let index = 0; index < POISON_ATTEMPT_LIMIT; index += 1) {
      const verdict = fail(ledger, 'fetch', 'BodyTimeout', index);
      ledger = verdict.ledger;
      verdicts.push(verdict.deadLetter);
    }
    expect(verdicts).toEqual([false, false, false, false, true]);
    expect(ledger.failuresByStage.fetch).toBe(5);
    expect(ledger.history.map((entry) => entry.atMs)).toEqual([0, 1, 2, 3, 4]);
  });

  it('counts stages separately: 4 fetch + 4 parse failures is not poison', () => {
    let ledger = emptyPoisonLedger();
    let last = fail(ledger, 'fetch', 'FirstByteTimeout');
    for (let index = 0; index < 4; index += 1) {
      last = fail(ledger, 'fetch', 'FirstByteTimeout');
      ledger = last.ledger;
      last = fail(ledger, 'parse', 'ParserCrashed');
      ledger = last.ledger;
    }
    expect(last.deadLetter).toBe(false);
    expect(ledger.failuresByStage).toEqual({ fetch: 4, parse: 4 });
  });

  it('records host-wide failures in the history without counting them', () => {
    let ledger = emptyPoisonLedger();
    for (let index = 0; index < 10; index += 1) ledger = fail(ledger, 'fetch', 'TooManyRequests').ledger;
    expect(ledger.failuresByStage.fetch).toBe(0);
    expect(ledger.history).toHaveLength(10);
  });

  it('counts failures that are not FetchFailureTypes (crashes, activity timeouts)', () => {
    expect(countsTowardPoison('ActivityStartToCloseTimeout')).toBe(true);
    expect(countsTowardPoison('BodyTooLarge')).toBe(true);
    expect(countsTowardPoison('DnsNotFound')).toBe(false);
  });

  it('a success at a stage restarts its count and keeps the history', () => {
    let ledger = emptyPoisonLedger();
    for (let index = 0; index < 4; index += 1) ledger = fail(ledger, 'store', 'StorageTimeout').ledger;
    ledger = fail(ledger, 'fetch', 'BodyTimeout').ledger;
    ledger = recordStageSuccess(ledger, 'store');
    expect(ledger.failuresByStage).toEqual({ fetch: 1 });
    expect(ledger.history).toHaveLength(5);
    expect(fail(ledger, 'store', 'StorageTimeout').failuresAtStage).toBe(1);
  });

  it('keeps only the newest history entries and cuts long details', () => {
    let ledger = emptyPoisonLedger();
    for (let index = 0; index < 30; index += 1) {
      ledger = recordStageFailure(ledger, { stage: 'fetch', failureType: 'RobotsDisallowed', atMs: index, detail: 'x'.repeat(2000) }, { maxHistoryEntries: 3 }).ledger;
    }
    expect(ledger.history.map((entry) => entry.atMs)).toEqual([27, 28, 29]);
    expect(ledger.history[0]?.detail).toHaveLength(MAX_FAILURE_DETAIL_CHARS);
  });

  it('honours a custom attempt limit and rejects a bad one', () => {
    expect(recordStageFailure(emptyPoisonLedger(), { stage: 'parse', failureType: 'X', atMs: 0 }, { attemptLimit: 1 }).deadLetter).toBe(true);
    expect(() => recordStageFailure(emptyPoisonLedger(), { stage: 'parse', failureType: 'X', atMs: 0 }, { attemptLimit: 0 })).toThrow(
      expect.objectContaining({ code: 'FAILURES_LEDGER_OPTIONS_INVALID', field: 'options.attemptLimit' }),
    );
  });

  it('does not mutate the ledger it was given, and survives JSON', () => {
    const ledger = emptyPoisonLedger();
    const { ledger: next } = fail(ledger, 'fetch', 'BodyTimeout');
    expect(ledger).toEqual({ failuresByStage: {}, history: [] });
    expect(JSON.parse(JSON.stringify(next))).toEqual(next);
  });
});
