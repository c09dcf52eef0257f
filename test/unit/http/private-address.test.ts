import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isPrivateAddress } from '../../../src/http/index.js';
import { parseIpv4, parseIpv6 } from '../../../src/http/private-address.js';

describe('isPrivateAddress', () => {
  it.each([
    // IPv4 edges of every refused range, and the first address outside each.
    ['0.0.0.0', true],
    ['0.255.255.255', true],
    ['1.0.0.0', false],
    ['9.255.255.255', false],
    ['10.0.0.0', true],
    ['10.255.255.255', true],
    ['11.0.0.0', false],
    ['100.63.255.255', false],
    ['100.64.0.0', true],
    ['100.127.255.255', true],
    ['100.128.0.0', false],
    ['126.255.255.255', false],
    ['127.0.0.1', true],
    ['127.255.255.254', true],
    ['128.0.0.0', false],
    ['169.253.255.255', false],
    ['169.254.169.254', true],
    ['169.255.0.0', false],
    ['172.15.255.255', false],
    ['172.16.0.0', true],
    ['172.31.255.255', true],
    ['172.32.0.0', false],
    ['192.0.0.8', true],
    ['192.0.2.1', true],
    ['192.88.99.1', true],
    ['192.167.255.255', false],
    ['192.168.0.1', true],
    ['192.169.0.0', false],
    ['198.17.255.255', false],
    ['198.18.0.0', true],
    ['198.19.255.255', true],
    ['198.20.0.0', false],
    ['198.51.100.7', true],
    ['203.0.113.9', true],
    ['223.255.255.255', false],
    ['224.0.0.1', true],
    ['239.255.255.255', true],
    ['240.0.0.1', true],
    ['255.255.255.255', true],
    ['8.8.8.8', false],
    ['93.184.216.34', false],
    // IPv6.
    ['::', true],
    ['::1', true],
    ['[::1]', true],
    ['::2', true],
    ['::127.0.0.1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::FFFF:10.0.0.1', true],
    ['::ffff:169.254.169.254', true],
    ['::ffff:8.8.8.8', false],
    ['::ffff:808:808', false],
    ['0:0:0:0:0:ffff:192.168.1.1', true],
    ['64:ff9b::10.0.0.1', true],
    ['64:ff9b::8.8.8.8', false],
    ['64:ff9b:1::1', true],
    ['2002:7f00:1::', true],
    ['2002:c0a8:101::1', true],
    ['2002:808:808::1', false],
    ['100::1', true],
    ['2001:db8::1', true],
    // Teredo 2001::/32, whatever IPv4 addresses it carries, and the first addresses outside it.
    ['2001::', true],
    ['2001::1', true],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', true],
    ['2001:0:ffff:ffff:ffff:ffff:ffff:ffff', true],
    ['2001:1::1', false],
    ['2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff', false],
    ['2001:2::1', true],
    ['2001:2:1::1', false],
    // IPv4-mapped ::ffff:0:0/96 is judged by its IPv4 address; IPv4-translated ::ffff:0:0:0/96 is refused whole.
    ['::ffff:0:0', true],
    ['::ffff:0.0.0.1', true],
    ['::ffff:100.64.0.1', true],
    ['::ffff:0:127.0.0.1', true],
    ['::ffff:0:7f00:1', true],
    ['0:0:0:0:ffff:0:7f00:1', true],
    ['::ffff:0:8.8.8.8', true],
    ['fc00::1', true],
    ['fd12:3456:789a::1', true],
    ['fe80::1', true],
    ['fe80::1%eth0', true],
    ['febf:ffff::1', true],
    ['fec0::1', true],
    ['ff02::1', true],
    ['ff0e::1', true],
    ['2001:4860:4860::8888', false],
    ['2606:4700:4700::1111', false],
    ['2a00:1450:4001:80b::200e', false],
    // Not an IP literal: fail closed.
    ['', true],
    ['localhost', true],
    ['example.com', true],
    ['127.1', true],
    ['0x7f.0.0.1', true],
    ['010.0.0.1', true],
    ['256.0.0.1', true],
    ['1.2.3.4.5', true],
    ['1::2::3', true],
    ['12345::', true],
    [':::', true],
  ])('%s → %s', (ip, expected) => {
    expect(isPrivateAddress(ip)).toBe(expected);
  });

  it('agrees with the plain IPv4 verdict for every IPv4-mapped and NAT64 form', () => {
    fc.assert(
      fc.property(fc.ipV4(), (v4) => {
        const verdict = isPrivateAddress(v4);
        const value = parseIpv4(v4) as number;
        const hex = `${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}`;
        expect(isPrivateAddress(`::ffff:${v4}`)).toBe(verdict);
        expect(isPrivateAddress(`::ffff:${hex}`)).toBe(verdict);
        expect(isPrivateAddress(`64:ff9b::${v4}`)).toBe(verdict);
        expect(isPrivateAddress(`2002:${hex}::1`)).toBe(verdict);
      }),
    );
  });

  it('refuses every address inside 10/8, 127/8, 172.16/12, 192.168/16, 169.254/16 and 100.64/10', () => {
    const inRange = (first: number, second: fc.Arbitrary<number>) =>
      fc.tuple(second, fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 })).map(([b, c, d]) => `${first}.${b}.${c}.${d}`);
    const octet = fc.integer({ min: 0, max: 255 });
    const ranges = fc.oneof(
      inRange(10, octet),
      inRange(127, octet),
      inRange(172, fc.integer({ min: 16, max: 31 })),
      inRange(192, fc.constant(168)),
      inRange(169, fc.constant(254)),
      inRange(100, fc.integer({ min: 64, max: 127 })),
    );
    fc.assert(
      fc.property(ranges, (ip) => {
        expect(isPrivateAddress(ip)).toBe(true);
      }),
    );
  });
});

describe('IP literal parsing', () => {
  it('parses every IPv6 form fast-check generates to the same hextets as its canonical form', () => {
    fc.assert(
      fc.property(fc.ipV6(), (ip) => {
        const parsed = parseIpv6(ip);
        expect(parsed).toHaveLength(8);
        // WHATWG URL serializes IPv6 canonically (RFC 5952); both spellings must parse alike.
        const canonical = new URL(`http://[${ip}]/`).hostname;
        expect(parseIpv6(canonical)).toEqual(parsed);
      }),
    );
  });

  it('rejects malformed IPv6', () => {
    for (const bad of ['1:2:3:4:5:6:7', '1:2:3:4:5:6:7:8:9', '1::2::3', 'g::1', '::ffff:1.2.3', '::1.2.3.4:5', '1:2:3:4:5:6:7:8::', ':1::']) {
      expect(parseIpv6(bad), bad).toBeUndefined();
    }
  });

  it('parses strict dotted-quad IPv4 only', () => {
    expect(parseIpv4('192.168.0.1')).toBe(0xc0a80001);
    expect(parseIpv4('255.255.255.255')).toBe(0xffffffff);
    for (const bad of ['1.2.3', '1.2.3.4.5', '01.2.3.4', '1.2.3.256', '1.2.3.-1', ' 1.2.3.4', '1.2.3.4 ']) {
      expect(parseIpv4(bad), bad).toBeUndefined();
    }
  });
});
