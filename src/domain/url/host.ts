import { UrlRejectedError } from './errors.js';

/** Host and effective port of an authority, canonicalized. */
export interface CanonicalAuthority {
  /** Lowercase ASCII: punycode domain, dotted IPv4, or bracketed compressed IPv6. */
  host: string;
  /** The explicit port, else the scheme's default. */
  port: number;
}

export const DEFAULT_PORTS = { http: 80, https: 443 } as const;

const IPV4 = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
// Letters, digits, hyphen and underscore: real DNS names, including the `_` some subdomains use.
// WHATWG would also accept `exa!mple.com`, which no resolver serves.
const LABEL = /^[a-z0-9_-]{1,63}$/;
const MAX_DOMAIN_CHARS = 253;

/**
 * Canonical host and port of `authority` (the text between `//` and the path). The host goes
 * through the WHATWG host parser (the `URL` global, present in Node and in Temporal's workflow
 * sandbox) for IDNA/UTS 46 mapping, IPv4 forms (`0x7f.1`, `2130706433`, `0177.0.0.1`) and IPv6
 * compression; we then insist on a DNS-shaped result.
 * @param input the whole URL, for the error only.
 */
export function canonicalizeAuthority(authority: string, scheme: 'http' | 'https', input: string): CanonicalAuthority {
  let hostText: string;
  let portText: string | undefined;
  if (authority.startsWith('[')) {
    const close = authority.indexOf(']');
    if (close < 0) throw new UrlRejectedError('invalid-host', input, 'IPv6 literal without a closing "]"');
    hostText = authority.slice(0, close + 1);
    const rest = authority.slice(close + 1);
    if (rest !== '' && !rest.startsWith(':')) throw new UrlRejectedError('invalid-host', input, 'text after the IPv6 literal');
    portText = rest === '' ? undefined : rest.slice(1);
  } else {
    const colon = authority.indexOf(':');
    hostText = colon < 0 ? authority : authority.slice(0, colon);
    portText = colon < 0 ? undefined : authority.slice(colon + 1);
  }
  return { host: canonicalHost(hostText, input), port: effectivePort(portText, scheme, input) };
}

function effectivePort(portText: string | undefined, scheme: 'http' | 'https', input: string): number {
  // `host:` with nothing after the colon means the default port (WHATWG, RFC 3986 §6.2.3).
  if (portText === undefined || portText === '') return DEFAULT_PORTS[scheme];
  if (!/^\d+$/.test(portText)) throw new UrlRejectedError('invalid-port', input, 'the port is not a decimal number');
  const digits = portText.replace(/^0+(?=\d)/, '');
  const port = digits.length > 5 ? Infinity : Number(digits);
  // Port 0 parses everywhere but can never be connected to.
  if (port < 1 || port > 65_535) throw new UrlRejectedError('invalid-port', input, 'the port is outside 1..65535');
  return port;
}

function canonicalHost(hostText: string, input: string): string {
  if (hostText === '') throw new UrlRejectedError('invalid-host', input, 'the host is empty');
  let parsed: string;
  try {
    parsed = new URL(`http://${hostText}/`).hostname;
  } catch {
    throw new UrlRejectedError('invalid-host', input, 'the host does not parse (IDNA, IPv4 or IPv6 rules)');
  }
  if (parsed.startsWith('[') || IPV4.test(parsed)) return parsed;
  const name = parsed.endsWith('.') ? parsed.slice(0, -1) : parsed;
  if (name.length === 0 || name.length > MAX_DOMAIN_CHARS || !name.split('.').every((label) => LABEL.test(label))) {
    throw new UrlRejectedError('invalid-host', input, 'the host is not a DNS name (letters, digits, "-", "_"; labels of 1 to 63)');
  }
  return parsed;
}
