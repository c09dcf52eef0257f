import { requireIntegerOption } from './errors.js';
import { productTokenKey } from './product-token.js';
import type { RobotsGroup, RobotsRules } from './types.js';
import { decodeUtf8, utf8Length } from './utf8.js';

/** How much of a robots.txt body to read. */
export interface ParseRobotsOptions {
  /**
   * Bytes of the body to parse (UTF-8 bytes when the body is a string). Default
   * {@link DEFAULT_ROBOTS_MAX_BYTES} (512 KiB); RFC 9309 §2.5 requires at least 500 KiB, so only
   * tests should go lower. Content past the limit is ignored together with the line the limit
   * cuts through (half a rule could widen an Allow), and `truncated` is set.
   */
  maxBytes?: number;
}

/** 512 KiB: above the 500 KiB minimum that RFC 9309 §2.5 sets for the parse limit. */
export const DEFAULT_ROBOTS_MAX_BYTES = 512 * 1024;

type Directive = 'user-agent' | 'allow' | 'disallow' | 'sitemap' | 'crawl-delay';

// Keys are compared lowercased with spaces, `-` and `_` removed, so `User-agent`, `user agent`,
// `useragent` and `User_Agent` are one key. RFC 9309 §2.2.4 lets parsers accept misspellings;
// these are the Disallow typos commonly seen in the wild.
const DIRECTIVES: Readonly<Record<string, Directive>> = {
  useragent: 'user-agent',
  allow: 'allow',
  disallow: 'disallow',
  dissallow: 'disallow',
  dissalow: 'disallow',
  disalow: 'disallow',
  diasllow: 'disallow',
  disallaw: 'disallow',
  sitemap: 'sitemap',
  crawldelay: 'crawl-delay',
};

function directiveOf(key: string): Directive | undefined {
  return DIRECTIVES[key.toLowerCase().replace(/[\s_-]+/g, '')];
}

const CRAWL_DELAY = /^(?:\d+(?:\.\d*)?|\.\d+)$/;
const ABSOLUTE_HTTP_URL = /^https?:\/\/[^\s/?#]+\S*$/i;

/**
 * Parses a robots.txt body (RFC 9309). Never throws on any body: lines that are not understood
 * are skipped, and a body with no groups (an HTML error page served as 200, say) allows
 * everything. Accepted leniencies: a UTF-8 BOM; CRLF, CR or LF line ends; keys in any case, with
 * spaces, `-` or `_` (`user agent`), and the Disallow misspellings listed in {@link DIRECTIVES};
 * a missing colon (`Disallow /x`); patterns starting with neither `/` nor `*` get a leading `/`.
 * Invalid UTF-8 bytes decode to U+FFFD.
 *
 * @throws RobotsError `ROBOTS_OPTIONS_INVALID` only for a bad `options.maxBytes`.
 */
export function parseRobotsTxt(body: string | Uint8Array, options: ParseRobotsOptions = {}): RobotsRules {
  const maxBytes = requireIntegerOption('options.maxBytes', options.maxBytes ?? DEFAULT_ROBOTS_MAX_BYTES, 1, 2 ** 30);
  const { text, parsedBytes, truncated } = readWithinLimit(body, maxBytes);
  const lines = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).split(/\r\n|\r|\n/);

  const groups: RobotsGroup[] = [];
  const sitemaps: string[] = [];
  let current: RobotsGroup | undefined;
  // RFC 9309 §2.2.1: consecutive user-agent lines share a group; only the first Allow/Disallow
  // closes the list. Crawl-delay, Sitemap and unknown records never touch grouping (§2.2.4), as in
  // Google's parser: a file that gives our token nothing but a Crawl-delay before `User-agent: *`
  // and its rules means one group for both agents, not an empty group of ours that allows all.
  let acceptingAgents = false;

  lines.forEach((raw, index) => {
    const line = splitLine(raw);
    if (line === undefined) return;
    const { directive, value } = line;
    switch (directive) {
      case 'user-agent': {
        if (current === undefined || !acceptingAgents) {
          current = { userAgents: [], rules: [] };
          groups.push(current);
          acceptingAgents = true;
        }
        const key = productTokenKey(value);
        if (key !== '' && !current.userAgents.includes(key)) current.userAgents.push(key);
        return;
      }
      case 'allow':
      case 'disallow': {
        // Rules before the first user-agent line belong to no group (§2.2.2): ignored.
        if (current === undefined) return;
        acceptingAgents = false;
        // An empty pattern is a rule that matches nothing: it closes the agent list, adds no rule.
        if (value === '') return;
        const pattern = value.startsWith('/') || value.startsWith('*') ? value : `/${value}`;
        current.rules.push({ kind: directive, pattern, line: index + 1 });
        return;
      }
      case 'crawl-delay': {
        // A member of the group it sits in, whichever of the group's agent lines it follows.
        if (current === undefined) return;
        if (!CRAWL_DELAY.test(value)) return;
        const seconds = Number(value);
        if (!Number.isFinite(seconds)) return;
        current.crawlDelaySeconds = Math.max(current.crawlDelaySeconds ?? 0, seconds);
        return;
      }
      case 'sitemap': {
        if (ABSOLUTE_HTTP_URL.test(value) && !sitemaps.includes(value)) sitemaps.push(value);
        return;
      }
    }
  });

  return { groups, sitemaps, parsedBytes, truncated };
}

function splitLine(raw: string): { directive: Directive; value: string } | undefined {
  const hash = raw.indexOf('#');
  const content = (hash >= 0 ? raw.slice(0, hash) : raw).trim();
  if (content === '') return undefined;
  const colon = content.indexOf(':');
  if (colon >= 0) {
    const directive = directiveOf(content.slice(0, colon));
    if (directive !== undefined) return { directive, value: content.slice(colon + 1).trim() };
  }
  // No colon, or text before the first colon that is no key (`Sitemap https://...`): accept a
  // known key separated from its value by whitespace.
  const spaced = /^(\S+)(?:\s+(.*))?$/.exec(content);
  const directive = spaced?.[1] === undefined ? undefined : directiveOf(spaced[1]);
  if (directive === undefined) return undefined;
  return { directive, value: (spaced?.[2] ?? '').trim() };
}

interface Bounded {
  text: string;
  parsedBytes: number;
  truncated: boolean;
}

function isLineBreak(code: number | undefined): boolean {
  return code === 0x0a || code === 0x0d;
}

function readWithinLimit(body: string | Uint8Array, maxBytes: number): Bounded {
  return typeof body === 'string' ? stringWithinLimit(body, maxBytes) : bytesWithinLimit(body, maxBytes);
}

function bytesWithinLimit(body: Uint8Array, maxBytes: number): Bounded {
  if (body.length <= maxBytes) return { text: decodeUtf8(body), parsedBytes: body.length, truncated: false };
  let cut = maxBytes;
  if (!isLineBreak(body[maxBytes])) {
    cut = 0;
    for (let i = maxBytes - 1; i >= 0; i--) {
      if (isLineBreak(body[i])) {
        cut = i + 1;
        break;
      }
    }
  }
  return { text: decodeUtf8(body, 0, cut), parsedBytes: cut, truncated: true };
}

function stringWithinLimit(body: string, maxBytes: number): Bounded {
  let bytes = 0;
  let i = 0;
  while (i < body.length) {
    const codePoint = body.codePointAt(i) as number;
    const size = utf8Length(codePoint);
    if (bytes + size > maxBytes) break;
    bytes += size;
    i += codePoint > 0xffff ? 2 : 1;
  }
  if (i >= body.length) return { text: body, parsedBytes: bytes, truncated: false };
  if (isLineBreak(body.charCodeAt(i))) return { text: body.slice(0, i), parsedBytes: bytes, truncated: true };
  const lastBreak = Math.max(body.lastIndexOf('\n', i - 1), body.lastIndexOf('\r', i - 1));
  if (lastBreak < 0 || i === 0) return { text: '', parsedBytes: 0, truncated: true };
  const text = body.slice(0, lastBreak + 1);
  return { text, parsedBytes: bytes - utf8StringLength(body.slice(lastBreak + 1, i)), truncated: true };
}

function utf8StringLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const codePoint = text.codePointAt(i) as number;
    bytes += utf8Length(codePoint);
    if (codePoint > 0xffff) i++;
  }
  return bytes;
}
