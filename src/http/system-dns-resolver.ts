import { Resolver, lookup } from 'node:dns/promises';
import { DnsLookupError } from './errors.js';

export interface DnsAddress {
  address: string;
  family: 4 | 6;
}

/** One resolution: the addresses and how long the answer may be reused. */
export interface DnsAnswer {
  addresses: readonly DnsAddress[];
  /** The smallest record TTL of the answer, ms (DnsCache clamps it). */
  ttlMs: number;
}

/** Resolves one hostname; rejects with DnsLookupError ('HTTP_DNS_NOT_FOUND' or 'HTTP_DNS_TEMPORARY_FAILURE'). */
export type DnsResolver = (hostname: string) => Promise<DnsAnswer>;

export interface SystemDnsResolverOptions {
  /** Per-query timeout of the DNS client, ms. Default 5_000. */
  queryTimeoutMs?: number;
  /** Attempts per nameserver before giving up. Default 2. */
  tries?: number;
  /** TTL given to answers that came from the hosts file (they carry none), ms. Default 60_000. */
  hostsFileTtlMs?: number;
}

/** c-ares codes that mean "ask again later" rather than "this name has no address". */
const TEMPORARY_DNS_CODES = new Set(['ESERVFAIL', 'ETIMEOUT', 'ECONNREFUSED', 'EREFUSED', 'EAI_AGAIN', 'EAI_FAIL', 'ECANCELLED', 'EBADRESP', 'ECONNRESET']);

/**
 * The resolver DnsCache uses by default: A and AAAA queries with their TTLs from the configured
 * nameservers, falling back to the system's getaddrinfo (which reads /etc/hosts) when DNS has no
 * answer, so names like 'localhost' work. NXDOMAIN from both is 'HTTP_DNS_NOT_FOUND'; a resolver
 * failure that the hosts file cannot make up for is 'HTTP_DNS_TEMPORARY_FAILURE'.
 */
export function createSystemDnsResolver(options: SystemDnsResolverOptions = {}): DnsResolver {
  const resolver = new Resolver({ timeout: options.queryTimeoutMs ?? 5_000, tries: options.tries ?? 2 });
  const hostsFileTtlMs = options.hostsFileTtlMs ?? 60_000;

  return async (hostname: string): Promise<DnsAnswer> => {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname, { ttl: true }), resolver.resolve6(hostname, { ttl: true })]);
    const records = [
      ...(v4.status === 'fulfilled' ? v4.value.map((record) => ({ ...record, family: 4 as const })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((record) => ({ ...record, family: 6 as const })) : []),
    ];
    if (records.length > 0) {
      return {
        addresses: records.map(({ address, family }) => ({ address, family })),
        ttlMs: Math.min(...records.map((record) => record.ttl)) * 1000,
      };
    }

    const dnsErrors = [v4, v6].flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
    const dnsWasTemporary = dnsErrors.some((error) => TEMPORARY_DNS_CODES.has(codeOf(error)));
    try {
      const answers = await lookup(hostname, { all: true, verbatim: true });
      if (answers.length === 0) throw new DnsLookupError('HTTP_DNS_NOT_FOUND', hostname);
      return {
        addresses: answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 })),
        ttlMs: hostsFileTtlMs,
      };
    } catch (error) {
      if (error instanceof DnsLookupError) throw error;
      const temporary = dnsWasTemporary || TEMPORARY_DNS_CODES.has(codeOf(error));
      throw new DnsLookupError(temporary ? 'HTTP_DNS_TEMPORARY_FAILURE' : 'HTTP_DNS_NOT_FOUND', hostname, error);
    }
  };
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}
