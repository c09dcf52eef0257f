import { describe, expect, it } from 'vitest';
import { HeldBodyBudget } from '../../../src/services/fetching/held-bodies.js';

describe('HeldBodyBudget', () => {
  it('holds bodies while they fit, refuses one too large for the whole or for one body, and takes released bytes back once', () => {
    const budget = new HeldBodyBudget({ maxHeldBytes: 100, maxBodyBytes: 60 });
    const first = budget.hold(Buffer.alloc(60));
    expect(first?.bytes.length).toBe(60);
    expect(budget.hold(Buffer.alloc(61))).toBeUndefined();
    expect(budget.mayHold(41)).toBe(false);
    expect(budget.roomForOneBody()).toBe(40);
    const second = budget.hold(Buffer.alloc(40));
    expect(budget.bytesHeld).toBe(100);
    expect(budget.hold(Buffer.alloc(1))).toBeUndefined();
    expect(budget.roomForOneBody()).toBe(0);
    first!.release();
    first!.release();
    expect(budget.bytesHeld).toBe(40);
    expect(budget.hold(Buffer.alloc(60))).toBeDefined();
    second!.release();
    expect(budget.bytesHeld).toBe(60);
  });

  it('defaults to 64 MiB in all and 1 MiB per body', () => {
    const budget = new HeldBodyBudget();
    expect(budget.mayHold(1024 * 1024)).toBe(true);
    expect(budget.mayHold(1024 * 1024 + 1)).toBe(false);
    expect(budget.maxHeldBytes).toBe(64 * 1024 * 1024);
  });
});
