import { isIP, type LookupFunction } from 'node:net';
import { TtlCache } from '../domain/politeness/index.js';
import { DnsLookupError, InvalidFetchRequestError, PrivateNetworkRefusedError } from './errors.js';
import { isPrivateAddress } from './private-address.js';
import { createSystemDnsResolver, type DnsAddress, type DnsResolver } from './system-dns-resolver.js';

export interface DnsCacheOptions {
  /** Hostnames remembered, answers and NXDOMAINs together; least recently used go first. Default 10_000. */
  maxEntries?: number;
  /** Floor on how long an answer is reused, ms, so a TTL of 0 does not mean one query per connect. Default 1_000. */
  minTtlMs?: number;
  /** Ceiling on how long an answer is reused, ms, so failover and CDN moves are seen (docs/design.md, "DNS and connections"). Default 300_000. */
  maxTtlMs?: number;
  /** How long "this name does not exist" is remembered, ms (docs/design.md, "Failure types and retries": long negative cache). Default 3_600_000. */
  negativeTtlMs?: number;
  /**
   * When false, `lookup` drops loopback/private/link-local answers and refuses a name that has
   * nothing else (isPrivateAddress). `resolve` always returns every address. Default false.
   */
  allowPrivateNetworks?: boolean;
  /** Where answers come from. Default createSystemDnsResolver(): DNS with TTLs, then the hosts file. */
  resolver?: DnsResolver;
  /** Wall clock in ms, injectable for tests. Default Date.now. */
  clock?: () => number;
}

type CachedResult = { kind: 'answer'; addresses: readonly DnsAddress[] } | { kind: 'not-found'; error: DnsLookupError };

/**
 * Hostname → addresses with the resolver's TTLs honoured (clamped to [minTtlMs, maxTtlMs]),
 * NXDOMAIN remembered for negativeTtlMs, temporary failures not remembered (the next attempt asks
 * again), and concurrent resolutions of one name sharing a single query. Caching never changes
 * how often a host is fetched; politeness lives above the HTTP layer (docs/design.md, "DNS and connections").
 */
export class DnsCache {
  private readonly cache: TtlCache<string, CachedResult>;
  private readonly inFlight = new Map<string, Promise<readonly DnsAddress[]>>();
  private readonly minTtlMs: number;
  private readonly maxTtlMs: number;
  private readonly negativeTtlMs: number;
  private readonly allowPrivateNetworks: boolean;
  private readonly resolver: DnsResolver;
  private readonly clock: () => number;

  constructor(options: DnsCacheOptions = {}) {
    this.minTtlMs = nonNegative('minTtlMs', options.minTtlMs ?? 1_000);
    this.maxTtlMs = nonNegative('maxTtlMs', options.maxTtlMs ?? 300_000);
    this.negativeTtlMs = nonNegative('negativeTtlMs', options.negativeTtlMs ?? 3_600_000);
    if (this.minTtlMs > this.maxTtlMs) {
      throw new InvalidFetchRequestError('HTTP_INVALID_OPTION', 'dnsCache.minTtlMs', `dnsCache.minTtlMs (${this.minTtlMs}) must not exceed maxTtlMs (${this.maxTtlMs})`);
    }
    this.cache = new TtlCache({ maxEntries: options.maxEntries ?? 10_000 });
    this.allowPrivateNetworks = options.allowPrivateNetworks ?? false;
    this.resolver = options.resolver ?? createSystemDnsResolver();
    this.clock = options.clock ?? Date.now;
  }

  /** Hostnames currently held (expired ones not yet dropped included). */
  get size(): number {
    return this.cache.size;
  }

  /**
   * Every address for `hostname`, from the cache while its TTL lasts. An IP literal is returned as
   * is. Rejects with DnsLookupError.
   */
  async resolve(hostname: string): Promise<readonly DnsAddress[]> {
    const literal = literalAddress(hostname);
    if (literal !== undefined) return [literal];
    const key = hostname.toLowerCase();

    const cached = this.cache.get(key, this.clock());
    if (cached?.kind === 'answer') return cached.addresses;
    if (cached?.kind === 'not-found') throw cached.error;

    const running = this.inFlight.get(key);
    if (running !== undefined) return running;
    const query = this.query(key).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, query);
    return query;
  }

  /** Forgets one hostname (positive or negative). */
  forget(hostname: string): void {
    this.cache.delete(hostname.toLowerCase());
  }

  /**
   * A `lookup` for net.connect / tls.connect / undici's connect options: answers from the cache,
   * honours `family` and `all`, and unless private networks are allowed, leaves out every
   * non-public address and fails with PrivateNetworkRefusedError when none is left. Checking here,
   * at connect time, means an answer that changes to 127.0.0.1 (DNS rebinding) is caught too.
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.resolve(hostname).then(
      (addresses) => {
        const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
        const ofFamily = family === 4 || family === 6 ? addresses.filter((answer) => answer.family === family) : addresses;
        const usable = this.allowPrivateNetworks ? ofFamily : ofFamily.filter((answer) => !isPrivateAddress(answer.address));
        if (usable.length === 0) {
          const error =
            ofFamily.length > 0
              ? new PrivateNetworkRefusedError(hostname, ofFamily.map((answer) => answer.address))
              : new DnsLookupError('HTTP_DNS_NOT_FOUND', hostname, `no IPv${String(family)} address`);
          callback(error, '', 0);
          return;
        }
        const first = usable[0] as DnsAddress;
        if (options.all === true) callback(null, usable.map((answer) => ({ address: answer.address, family: answer.family })));
        else callback(null, first.address, first.family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };

  private async query(key: string): Promise<readonly DnsAddress[]> {
    try {
      const answer = await this.resolver(key);
      if (answer.addresses.length === 0) throw new DnsLookupError('HTTP_DNS_NOT_FOUND', key);
      const ttlMs = Math.min(this.maxTtlMs, Math.max(this.minTtlMs, answer.ttlMs));
      this.cache.set(key, { kind: 'answer', addresses: answer.addresses }, ttlMs, this.clock());
      return answer.addresses;
    } catch (error) {
      const failure = error instanceof DnsLookupError ? error : new DnsLookupError('HTTP_DNS_TEMPORARY_FAILURE', key, error);
      if (failure.code === 'HTTP_DNS_NOT_FOUND') this.cache.set(key, { kind: 'not-found', error: failure }, this.negativeTtlMs, this.clock());
      throw failure;
    }
  }
}

function literalAddress(hostname: string): DnsAddress | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  const version = isIP(bare);
  return version === 4 || version === 6 ? { address: bare, family: version } : undefined;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) {
    throw new InvalidFetchRequestError('HTTP_INVALID_OPTION', `dnsCache.${name}`, `dnsCache.${name} must be a finite number of ms >= 0, got ${String(value)}`);
  }
  return value;
}
