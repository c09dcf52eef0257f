import { describe, expect, it } from 'vitest';
import { InvalidFetchRequestError, ProxyRotation } from '../../../src/http/index.js';

describe('ProxyRotation', () => {
  it('keeps a host on one proxy for its session, then moves it to the next, round the list', () => {
    const rotation = new ProxyRotation({ proxyCount: 3, sessionRequests: 2 });
    const picks = Array.from({ length: 8 }, () => rotation.next('shop.example'));
    const first = picks[0]!;
    expect(picks).toEqual([first, first, (first + 1) % 3, (first + 1) % 3, (first + 2) % 3, (first + 2) % 3, first, first]);
  });

  it('treats a host name case-insensitively', () => {
    const rotation = new ProxyRotation({ proxyCount: 5, sessionRequests: 10 });
    expect(rotation.next('Shop.Example')).toBe(rotation.next('shop.example'));
    expect(rotation.size).toBe(1);
  });

  it('spreads hosts over the proxies rather than starting them all on the first', () => {
    const rotation = new ProxyRotation({ proxyCount: 4, sessionRequests: 100 });
    const starts = new Map<number, number>();
    for (let i = 0; i < 400; i += 1) {
      const proxy = rotation.next(`host-${i}.example`);
      starts.set(proxy, (starts.get(proxy) ?? 0) + 1);
    }
    expect(starts.size).toBe(4);
    for (const count of starts.values()) expect(count).toBeGreaterThan(50);
  });

  it('ends a session at once when its proxy failed', () => {
    const rotation = new ProxyRotation({ proxyCount: 2, sessionRequests: 100 });
    const first = rotation.next('a.example');
    rotation.endSession('A.example');
    expect(rotation.next('a.example')).toBe(1 - first);
    expect(rotation.next('a.example')).toBe(1 - first);
    // A host never seen has no session to end.
    rotation.endSession('never.example');
    expect(rotation.size).toBe(1);
  });

  it('forgets the least recently used hosts past its bound', () => {
    const rotation = new ProxyRotation({ proxyCount: 3, sessionRequests: 1, maxHosts: 2 });
    rotation.next('a');
    rotation.next('b');
    rotation.next('a');
    rotation.next('c');
    expect(rotation.size).toBe(2);
  });

  it('with one proxy, every request goes through it', () => {
    const rotation = new ProxyRotation({ proxyCount: 1, sessionRequests: 1 });
    expect(Array.from({ length: 4 }, () => rotation.next('x'))).toEqual([0, 0, 0, 0]);
  });

  it.each([
    [{ proxyCount: 0, sessionRequests: 1 }],
    [{ proxyCount: 1, sessionRequests: 0 }],
    [{ proxyCount: 1.5, sessionRequests: 1 }],
    [{ proxyCount: 1, sessionRequests: 1, maxHosts: 0 }],
  ])('refuses %j', (options) => {
    expect(() => new ProxyRotation(options)).toThrow(InvalidFetchRequestError);
  });
});
