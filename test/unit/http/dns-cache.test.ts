import { describe, expect, it } from 'vitest';
import type { LookupAddress } from 'node:dns';
import { DnsCache, DnsLookupError, PrivateNetworkRefusedError, createSystemDnsResolver, type DnsAnswer, type DnsCacheOptions } from '../../../src/http/index.js';

/** A scripted resolver that counts queries; answers are set per hostname. */
function scripted() {
  const answers = new Map<string, DnsAnswer | DnsLookupError>();
  const queries: string[] = [];
  const resolver = async (hostname: string): Promise<DnsAnswer> => {
    queries.push(hostname);
    const answer = answers.get(hostname);
    if (answer === undefined) throw new Error(`unscripted ${hostname}`);
    if (answer instanceof DnsLookupError) throw answer;
    return answer;
  };
  return { answers, queries, resolver };
}

function v4(ttlMs: number, ...addresses: string[]): DnsAnswer {
  return { addresses: addresses.map((address) => ({ address, family: 4 })), ttlMs };
}

function cacheWith(script: ReturnType<typeof scripted>, options: DnsCacheOptions = {}) {
  let now = 1_000_000;
  const cache = new DnsCache({ resolver: script.resolver, clock: () => now, ...options });
  return { cache, advance: (ms: number) => (now += ms) };
}

type LookupResult = { error: NodeJS.ErrnoException | null; address?: string | LookupAddress[]; family?: number };
function lookup(cache: DnsCache, hostname: string, options: { all?: boolean; family?: number } = {}): Promise<LookupResult> {
  return new Promise((resolve) => cache.lookup(hostname, options, (error, address, family) => resolve({ error, address, family })));
}

describe('DnsCache', () => {
  it('reuses an answer for its TTL and asks again after', async () => {
    const script = scripted();
    script.answers.set('a.test', v4(30_000, '93.184.216.34'));
    const { cache, advance } = cacheWith(script);
    expect(await cache.resolve('a.test')).toEqual([{ address: '93.184.216.34', family: 4 }]);
    advance(29_999);
    await cache.resolve('A.TEST');
    expect(script.queries).toEqual(['a.test']);
    advance(1);
    script.answers.set('a.test', v4(30_000, '93.184.216.35'));
    expect(await cache.resolve('a.test')).toEqual([{ address: '93.184.216.35', family: 4 }]);
    expect(script.queries).toEqual(['a.test', 'a.test']);
  });

  it('clamps TTLs to [minTtlMs, maxTtlMs]', async () => {
    const script = scripted();
    script.answers.set('zero.test', v4(0, '1.1.1.1'));
    script.answers.set('long.test', v4(86_400_000, '1.0.0.1'));
    const { cache, advance } = cacheWith(script, { minTtlMs: 5_000, maxTtlMs: 60_000 });
    await cache.resolve('zero.test');
    await cache.resolve('long.test');
    advance(4_999);
    await cache.resolve('zero.test');
    expect(script.queries.filter((name) => name === 'zero.test')).toHaveLength(1);
    advance(1);
    await cache.resolve('zero.test');
    expect(script.queries.filter((name) => name === 'zero.test')).toHaveLength(2);
    advance(55_000);
    await cache.resolve('long.test');
    expect(script.queries.filter((name) => name === 'long.test')).toHaveLength(2);
  });

  it('remembers NXDOMAIN for negativeTtlMs', async () => {
    const script = scripted();
    script.answers.set('gone.test', new DnsLookupError('HTTP_DNS_NOT_FOUND', 'gone.test'));
    const { cache, advance } = cacheWith(script, { negativeTtlMs: 3_600_000 });
    await expect(cache.resolve('gone.test')).rejects.toMatchObject({ code: 'HTTP_DNS_NOT_FOUND' });
    advance(3_599_999);
    await expect(cache.resolve('gone.test')).rejects.toMatchObject({ code: 'HTTP_DNS_NOT_FOUND' });
    expect(script.queries).toEqual(['gone.test']);
    advance(1);
    script.answers.set('gone.test', v4(60_000, '8.8.4.4'));
    expect(await cache.resolve('gone.test')).toEqual([{ address: '8.8.4.4', family: 4 }]);
  });

  it('treats an empty answer as not found', async () => {
    const script = scripted();
    script.answers.set('empty.test', { addresses: [], ttlMs: 60_000 });
    const { cache } = cacheWith(script);
    await expect(cache.resolve('empty.test')).rejects.toMatchObject({ code: 'HTTP_DNS_NOT_FOUND' });
    await expect(cache.resolve('empty.test')).rejects.toMatchObject({ code: 'HTTP_DNS_NOT_FOUND' });
    expect(script.queries).toHaveLength(1);
  });

  it('does not remember temporary failures, and names unknown resolver errors temporary', async () => {
    const script = scripted();
    script.answers.set('flaky.test', new DnsLookupError('HTTP_DNS_TEMPORARY_FAILURE', 'flaky.test'));
    const { cache } = cacheWith(script);
    await expect(cache.resolve('flaky.test')).rejects.toMatchObject({ code: 'HTTP_DNS_TEMPORARY_FAILURE' });
    await expect(cache.resolve('flaky.test')).rejects.toMatchObject({ code: 'HTTP_DNS_TEMPORARY_FAILURE' });
    expect(script.queries).toEqual(['flaky.test', 'flaky.test']);
    const error = await cache.resolve('unscripted.test').catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(DnsLookupError);
    expect((error as DnsLookupError).code).toBe('HTTP_DNS_TEMPORARY_FAILURE');
  });

  it('shares one query between concurrent resolutions of a name', async () => {
    const script = scripted();
    script.answers.set('busy.test', v4(60_000, '9.9.9.9'));
    const { cache } = cacheWith(script);
    const results = await Promise.all([cache.resolve('busy.test'), cache.resolve('busy.test'), cache.resolve('BUSY.test')]);
    expect(new Set(results).size).toBe(1);
    expect(script.queries).toEqual(['busy.test']);
  });

  it('evicts the least recently used name beyond maxEntries', async () => {
    const script = scripted();
    for (const name of ['one.test', 'two.test', 'three.test']) script.answers.set(name, v4(60_000, '1.2.3.4'));
    const { cache } = cacheWith(script, { maxEntries: 2 });
    await cache.resolve('one.test');
    await cache.resolve('two.test');
    await cache.resolve('one.test');
    await cache.resolve('three.test');
    expect(cache.size).toBe(2);
    await cache.resolve('one.test');
    await cache.resolve('two.test');
    expect(script.queries).toEqual(['one.test', 'two.test', 'three.test', 'two.test']);
  });

  it('returns IP literals without a query', async () => {
    const script = scripted();
    const { cache } = cacheWith(script);
    expect(await cache.resolve('203.0.114.1')).toEqual([{ address: '203.0.114.1', family: 4 }]);
    expect(await cache.resolve('[2001:4860::1]')).toEqual([{ address: '2001:4860::1', family: 6 }]);
    expect(script.queries).toEqual([]);
  });

  it('rejects bad TTL options', () => {
    expect(() => new DnsCache({ minTtlMs: -1 })).toThrow(/minTtlMs/);
    expect(() => new DnsCache({ minTtlMs: 10, maxTtlMs: 5 })).toThrow(/must not exceed/);
  });
});

describe('DnsCache.lookup (for net.connect and undici)', () => {
  const mixed: DnsAnswer = {
    addresses: [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.5', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
      { address: 'fe80::1', family: 6 },
    ],
    ttlMs: 60_000,
  };

  it('answers one address, or all of them, honouring family', async () => {
    const script = scripted();
    script.answers.set('mixed.test', mixed);
    const { cache } = cacheWith(script, { allowPrivateNetworks: true });
    expect(await lookup(cache, 'mixed.test')).toEqual({ error: null, address: '93.184.216.34', family: 4 });
    expect(await lookup(cache, 'mixed.test', { family: 6 })).toEqual({ error: null, address: '2606:2800:220:1::1', family: 6 });
    const all = await lookup(cache, 'mixed.test', { all: true });
    expect(all.address).toHaveLength(4);
  });

  it('drops private answers when private networks are refused', async () => {
    const script = scripted();
    script.answers.set('mixed.test', mixed);
    const { cache } = cacheWith(script);
    const all = await lookup(cache, 'mixed.test', { all: true });
    expect(all.address).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
  });

  it('refuses a name whose answers are all private', async () => {
    const script = scripted();
    script.answers.set('inside.test', v4(60_000, '127.0.0.1', '192.168.0.10'));
    const { cache } = cacheWith(script);
    const { error } = await lookup(cache, 'inside.test', { all: true });
    expect(error).toBeInstanceOf(PrivateNetworkRefusedError);
    expect((error as unknown as PrivateNetworkRefusedError).addresses).toEqual(['127.0.0.1', '192.168.0.10']);
    expect((await lookup(cache, '10.9.8.7')).error).toBeInstanceOf(PrivateNetworkRefusedError);
  });

  it('passes DNS failures through and reports a missing family as not found', async () => {
    const script = scripted();
    script.answers.set('gone.test', new DnsLookupError('HTTP_DNS_NOT_FOUND', 'gone.test'));
    script.answers.set('v4only.test', v4(60_000, '93.184.216.34'));
    const { cache } = cacheWith(script);
    expect((await lookup(cache, 'gone.test')).error).toMatchObject({ code: 'HTTP_DNS_NOT_FOUND' });
    expect((await lookup(cache, 'v4only.test', { family: 6 })).error).toMatchObject({ code: 'HTTP_DNS_NOT_FOUND' });
  });
});

describe('createSystemDnsResolver (offline-safe)', () => {
  it('falls back to the hosts file for localhost', async () => {
    const answer = await createSystemDnsResolver({ queryTimeoutMs: 1_000, tries: 1 })('localhost');
    expect(answer.addresses.map((entry) => entry.address)).toContain('127.0.0.1');
    expect(answer.ttlMs).toBe(60_000);
  });

  it('names a reserved .invalid name not found', async () => {
    await expect(createSystemDnsResolver({ queryTimeoutMs: 1_000, tries: 1 })('nothing-here.invalid')).rejects.toMatchObject({ code: 'HTTP_DNS_NOT_FOUND' });
  });
});
