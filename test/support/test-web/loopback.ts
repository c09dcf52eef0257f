import { TestWebError } from './errors.js';

/** Options for {@link loopbackHosts}. */
export interface LoopbackHostsOptions {
  /**
   * First address to consider, inclusive, dotted 127.a.b.c. Default `127.20.0.0` (so the first host
   * is 127.20.0.1). Give each test web its own base when two must coexist in one process.
   */
  base?: string;
}

const LOOPBACK_FIRST = 127 * 2 ** 24;
const LOOPBACK_LAST = LOOPBACK_FIRST + 2 ** 24 - 1;

/** Parses a dotted IPv4 address to an unsigned 32-bit number, or undefined if it is not one. */
export function parseIpv4(address: string): number | undefined {
  const parts = address.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = value * 256 + octet;
  }
  return value;
}

export function formatIpv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

/** True for a dotted 127.x.y.z address: Linux routes all of 127.0.0.0/8 to loopback unconfigured. */
export function isLoopbackIpv4(address: string): boolean {
  const value = parseIpv4(address);
  return value !== undefined && value >= LOOPBACK_FIRST && value <= LOOPBACK_LAST;
}

/**
 * `count` distinct loopback addresses from `base` upwards, skipping last octets 0 and 255 (they
 * read as network and broadcast addresses, which some URL and IP libraries treat specially).
 */
export function loopbackHosts(count: number, options: LoopbackHostsOptions = {}): string[] {
  const base = options.base ?? '127.20.0.0';
  if (!Number.isInteger(count) || count < 0) {
    throw new TestWebError('TEST_WEB_INVALID_OPTION', `loopbackHosts: count must be a non-negative integer, got ${count}`);
  }
  const start = parseIpv4(base);
  if (start === undefined || !isLoopbackIpv4(base)) {
    throw new TestWebError('TEST_WEB_INVALID_HOST', `loopbackHosts: base "${base}" is not a dotted 127.x.y.z address; pass one inside 127.0.0.0/8`);
  }
  const hosts: string[] = [];
  for (let value = start; hosts.length < count; value++) {
    if (value > LOOPBACK_LAST) {
      throw new TestWebError(
        'TEST_WEB_ADDRESS_SPACE_EXHAUSTED',
        `loopbackHosts: only ${hosts.length} usable addresses from ${base} to 127.255.255.254, ${count} asked; choose a lower base`,
      );
    }
    const last = value & 255;
    if (last === 0 || last === 255) continue;
    hosts.push(formatIpv4(value));
  }
  return hosts;
}
