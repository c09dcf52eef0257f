// Which addresses the crawler must never connect to unless private networks are allowed: a page on
// the public web must not be able to point us at loopback, the LAN, the cloud metadata service or
// anything else that is not globally reachable (IANA special-purpose registries).

/** [first octets as a 32-bit number, prefix length] of IPv4 ranges that are not public. */
const NON_PUBLIC_IPV4: ReadonlyArray<readonly [number, number]> = [
  [ipv4(0, 0, 0, 0), 8], //        "this network", 0.0.0.0
  [ipv4(10, 0, 0, 0), 8], //       RFC 1918
  [ipv4(100, 64, 0, 0), 10], //    carrier-grade NAT (RFC 6598)
  [ipv4(127, 0, 0, 0), 8], //      loopback
  [ipv4(169, 254, 0, 0), 16], //   link-local, cloud metadata endpoints
  [ipv4(172, 16, 0, 0), 12], //    RFC 1918
  [ipv4(192, 0, 0, 0), 24], //     IETF protocol assignments
  [ipv4(192, 0, 2, 0), 24], //     documentation (TEST-NET-1)
  [ipv4(192, 88, 99, 0), 24], //   deprecated 6to4 relay anycast
  [ipv4(192, 168, 0, 0), 16], //   RFC 1918
  [ipv4(198, 18, 0, 0), 15], //    benchmarking
  [ipv4(198, 51, 100, 0), 24], //  documentation (TEST-NET-2)
  [ipv4(203, 0, 113, 0), 24], //   documentation (TEST-NET-3)
  [ipv4(224, 0, 0, 0), 4], //      multicast
  [ipv4(240, 0, 0, 0), 4], //      reserved, and 255.255.255.255 broadcast
];

function ipv4(a: number, b: number, c: number, d: number): number {
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

/** Parses strict dotted-quad decimal ("127.0.0.1"); anything else (octal, hex, short forms) is undefined. */
export function parseIpv4(text: string): number | undefined {
  const parts = text.split('.');
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

/** Parses an IPv6 literal (with optional brackets, zone id, embedded IPv4 tail) into 8 hextets. */
export function parseIpv6(text: string): number[] | undefined {
  let body = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = body.indexOf('%');
  if (zone !== -1) body = body.slice(0, zone);
  if (body.length === 0 || !/^[0-9a-fA-F:.]+$/.test(body)) return undefined;

  // An embedded IPv4 tail ("::ffff:127.0.0.1") stands for the last two hextets.
  let tail: number[] = [];
  if (body.includes('.')) {
    const lastColon = body.lastIndexOf(':');
    const v4 = parseIpv4(body.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    tail = [v4 >>> 16, v4 & 0xffff];
    body = body.slice(0, lastColon + 1);
    if (!body.endsWith('::')) body = body.slice(0, -1);
  }

  const halves = body.split('::');
  if (halves.length > 2) return undefined;
  const parseGroups = (part: string): number[] | undefined => {
    if (part === '') return [];
    const groups: number[] = [];
    for (const group of part.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
      groups.push(parseInt(group, 16));
    }
    return groups;
  };
  const head = parseGroups(halves[0] ?? '');
  const rest = halves.length === 2 ? parseGroups(halves[1] ?? '') : [];
  if (head === undefined || rest === undefined) return undefined;

  const written = head.length + rest.length + tail.length;
  if (halves.length === 2) {
    if (written > 7) return undefined;
    return [...head, ...new Array<number>(8 - written).fill(0), ...rest, ...tail];
  }
  if (written !== 8) return undefined;
  return [...head, ...rest, ...tail];
}

function isNonPublicIpv4(value: number): boolean {
  return NON_PUBLIC_IPV4.some(([base, prefix]) => (value >>> (32 - prefix)) === (base >>> (32 - prefix)));
}

function embeddedIpv4(high: number, low: number): number {
  return ((high << 16) | low) >>> 0;
}

function isNonPublicIpv6(h: number[]): boolean {
  const [h0 = 0, h1 = 0, h2 = 0, h3 = 0, h4 = 0, h5 = 0, h6 = 0, h7 = 0] = h;
  const firstFiveZero = h0 === 0 && h1 === 0 && h2 === 0 && h3 === 0 && h4 === 0;
  // ::ffff:a.b.c.d (IPv4-mapped): the socket really talks to the IPv4 address.
  if (firstFiveZero && h5 === 0xffff) return isNonPublicIpv4(embeddedIpv4(h6, h7));
  // ::/96 holds ::, ::1 and the deprecated IPv4-compatible form: none of it is a public host.
  if (firstFiveZero && h5 === 0) return true;
  // ::ffff:0:a.b.c.d (IPv4-translated, ::ffff:0:0:0/96, RFC 6145): only a SIIT translator's own
  // addressing, never a public host; a translator would carry us to any IPv4 address at all.
  if (h0 === 0 && h1 === 0 && h2 === 0 && h3 === 0 && h4 === 0xffff && h5 === 0) return true;
  // 64:ff9b::/96 NAT64 well-known prefix: judge the IPv4 address it translates to.
  if (h0 === 0x64 && h1 === 0xff9b && h2 === 0 && h3 === 0 && h4 === 0 && h5 === 0) {
    return isNonPublicIpv4(embeddedIpv4(h6, h7));
  }
  if (h0 === 0x64 && h1 === 0xff9b && h2 === 1) return true; // 64:ff9b:1::/48 local-use NAT64
  // 2002::/16 6to4: the IPv4 address sits in bits 16..47.
  if (h0 === 0x2002) return isNonPublicIpv4(embeddedIpv4(h1, h2));
  if (h0 === 0x100 && h1 === 0 && h2 === 0 && h3 === 0) return true; // 100::/64 discard-only
  if (h0 === 0x2001 && h1 === 0xdb8) return true; // 2001:db8::/32 documentation
  // 2001::/32 Teredo: a tunnel whose far end (the server and client IPv4 addresses in bits 32..63
  // and, obfuscated, 96..127) we cannot judge, and no web host is addressed through it.
  if (h0 === 0x2001 && h1 === 0) return true;
  if (h0 === 0x2001 && h1 === 2 && h2 === 0) return true; // 2001:2::/48 benchmarking
  if ((h0 & 0xfe00) === 0xfc00) return true; // fc00::/7 unique-local
  if ((h0 & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((h0 & 0xffc0) === 0xfec0) return true; // fec0::/10 deprecated site-local
  if ((h0 & 0xff00) === 0xff00) return true; // ff00::/8 multicast
  return false;
}

/**
 * True when `ip` must not be connected to without `allowPrivateNetworks`: loopback, RFC 1918,
 * CGNAT, link-local, unique-local, unspecified, multicast, reserved, benchmarking and
 * documentation ranges, the IPv4-mapped, NAT64 and 6to4 IPv6 forms of any of those, and all of
 * Teredo (2001::/32) and IPv4-translated (::ffff:0:0:0/96) IPv6. Accepts IPv6 with or without
 * brackets and with a zone id. Anything that is not a valid IP literal counts as private: the
 * check fails closed.
 */
export function isPrivateAddress(ip: string): boolean {
  const v4 = parseIpv4(ip);
  if (v4 !== undefined) return isNonPublicIpv4(v4);
  const v6 = parseIpv6(ip);
  if (v6 !== undefined) return isNonPublicIpv6(v6);
  return true;
}
