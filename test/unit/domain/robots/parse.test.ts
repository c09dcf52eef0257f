import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchRobots, parseRobotsTxt, RobotsError, type RobotsRules } from '../../../../src/domain/robots/index.js';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const allowed = (rules: RobotsRules, path: string, agent = 'DurableCrawler'): boolean => matchRobots(rules, agent, path).allowed;

describe('parseRobotsTxt: bytes and line ends', () => {
  it('skips a UTF-8 BOM in a string body', () => {
    const rules = parseRobotsTxt('\uFEFFUser-agent: *\nDisallow: /private\n');
    expect(rules.groups[0]?.userAgents).toEqual(['*']);
    expect(allowed(rules, '/private/x')).toBe(false);
  });

  it('skips a UTF-8 BOM in a byte body and counts it in parsedBytes', () => {
    const body = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8('User-agent: *\nDisallow: /private\n')]);
    const rules = parseRobotsTxt(body);
    expect(allowed(rules, '/private/x')).toBe(false);
    expect(rules.parsedBytes).toBe(body.length);
    expect(rules.truncated).toBe(false);
  });

  it('accepts CRLF line ends', () => {
    const rules = parseRobotsTxt('User-agent: *\r\nDisallow: /a\r\nDisallow: /b\r\n');
    expect(rules.groups[0]?.rules.map((rule) => [rule.pattern, rule.line])).toEqual([
      ['/a', 2],
      ['/b', 3],
    ]);
  });

  it('accepts bare CR line ends (old Mac files)', () => {
    const rules = parseRobotsTxt('User-agent: *\rDisallow: /a\rAllow: /a/b\r');
    expect(allowed(rules, '/a/c')).toBe(false);
    expect(allowed(rules, '/a/b')).toBe(true);
    expect(rules.groups[0]?.rules.map((rule) => rule.line)).toEqual([2, 3]);
  });

  it('accepts a mix of line ends and no final newline', () => {
    const rules = parseRobotsTxt('User-agent: *\r\nDisallow: /a\rDisallow: /b\nDisallow: /c');
    expect(rules.groups[0]?.rules.map((rule) => rule.pattern)).toEqual(['/a', '/b', '/c']);
  });

  it('decodes UTF-8 patterns from bytes, and turns invalid bytes into U+FFFD without losing the line', () => {
    const body = new Uint8Array([...utf8('User-agent: *\nDisallow: /caf'), 0xe9, ...utf8('\nDisallow: /ツ\n')]);
    const rules = parseRobotsTxt(body);
    expect(rules.groups[0]?.rules.map((rule) => rule.pattern)).toEqual(['/caf\uFFFD', '/ツ']);
    expect(allowed(rules, '/%E3%83%84/x')).toBe(false);
  });
});

describe('parseRobotsTxt: lines and keys', () => {
  it('drops comments, whole-line and trailing', () => {
    const rules = parseRobotsTxt('# header\nUser-agent: * # everyone\n  # indented comment\nDisallow: /a # not /b\n');
    expect(rules.groups).toEqual([{ userAgents: ['*'], rules: [{ kind: 'disallow', pattern: '/a', line: 4 }] }]);
  });

  it('reads keys case-insensitively and tolerates whitespace around the colon', () => {
    const rules = parseRobotsTxt('USER-AGENT :  *\n\tdIsAlLoW\t:\t/x\t\nALLOW:/x/y\n');
    expect(rules.groups[0]?.rules.map((rule) => [rule.kind, rule.pattern])).toEqual([
      ['disallow', '/x'],
      ['allow', '/x/y'],
    ]);
  });

  it('accepts the user-agent spellings "user agent", "useragent" and "User_Agent"', () => {
    for (const key of ['user agent', 'useragent', 'User_Agent']) {
      const rules = parseRobotsTxt(`${key}: DurableCrawler\nDisallow: /\n`);
      expect(rules.groups[0]?.userAgents, key).toEqual(['durablecrawler']);
    }
  });

  it('accepts common Disallow misspellings', () => {
    for (const key of ['dissallow', 'dissalow', 'disalow', 'diasllow', 'disallaw']) {
      const rules = parseRobotsTxt(`User-agent: *\n${key}: /x\n`);
      expect(allowed(rules, '/x'), key).toBe(false);
    }
  });

  it('accepts a missing colon between a known key and its value', () => {
    const rules = parseRobotsTxt('User-agent *\nDisallow /private\nSitemap https://example.com/s.xml\n');
    expect(allowed(rules, '/private')).toBe(false);
    expect(rules.sitemaps).toEqual(['https://example.com/s.xml']);
  });

  it('skips malformed lines without disturbing the group around them', () => {
    const rules = parseRobotsTxt(
      ['User-agent: *', 'Disallow /a', 'this is not a rule', ':', ': /nokey', 'Unknown-Field: /x', 'Noindex: /y', 'Disallow: /b'].join('\n'),
    );
    expect(rules.groups).toHaveLength(1);
    expect(rules.groups[0]?.rules.map((rule) => rule.pattern)).toEqual(['/a', '/b']);
  });

  it('prefixes a slash to patterns that start with neither / nor *', () => {
    const rules = parseRobotsTxt('User-agent: *\nDisallow: private/\nAllow: *.css\n');
    expect(rules.groups[0]?.rules.map((rule) => rule.pattern)).toEqual(['/private/', '*.css']);
    expect(allowed(rules, '/private/x')).toBe(false);
  });

  it('ignores rules before the first user-agent line', () => {
    const rules = parseRobotsTxt('Disallow: /\nCrawl-delay: 5\nUser-agent: *\nDisallow: /x\n');
    expect(rules.groups).toEqual([{ userAgents: ['*'], rules: [{ kind: 'disallow', pattern: '/x', line: 4 }] }]);
    expect(allowed(rules, '/y')).toBe(true);
  });

  it('an empty Disallow adds no rule but still closes the user-agent list', () => {
    const rules = parseRobotsTxt('User-agent: a\nDisallow:\nUser-agent: b\nDisallow: /\n');
    expect(rules.groups.map((group) => group.userAgents)).toEqual([['a'], ['b']]);
    expect(rules.groups[0]?.rules).toEqual([]);
    expect(allowed(rules, '/x', 'a')).toBe(true);
    expect(allowed(rules, '/x', 'b')).toBe(false);
  });

  it('groups consecutive user-agent lines, blank lines included, and starts a new group after a rule', () => {
    const rules = parseRobotsTxt('user-agent: a\ndisallow: /c\n\nuser-agent: b\ndisallow: /d\n\nuser-agent: e\n\nuser-agent: f\ndisallow: /g\n\nuser-agent: h\n');
    expect(rules.groups.map((group) => group.userAgents)).toEqual([['a'], ['b'], ['e', 'f'], ['h']]);
    expect(allowed(rules, '/g', 'e')).toBe(false);
    expect(allowed(rules, '/g', 'f')).toBe(false);
    expect(allowed(rules, '/c', 'h')).toBe(true);
  });

  it('does not let Sitemap or unknown lines split a group or end its user-agent list (RFC 9309 §2.2.4)', () => {
    const rules = parseRobotsTxt('User-agent: a\nSitemap: https://e.com/s.xml\nNoindex: /z\nUser-agent: b\nDisallow: /x\nSitemap: https://e.com/t.xml\nDisallow: /y\n');
    expect(rules.groups).toHaveLength(1);
    expect(rules.groups[0]).toMatchObject({ userAgents: ['a', 'b'] });
    expect(allowed(rules, '/y', 'a')).toBe(false);
    expect(allowed(rules, '/x', 'b')).toBe(false);
  });

  it('keeps a group whose only line for us is a Crawl-delay together with the next user-agent lines (RFC 9309 §2.2.1, Google)', () => {
    const rules = parseRobotsTxt('User-agent: DurableCrawler\nCrawl-delay: 5\n\nUser-agent: *\nDisallow: /\n');
    expect(rules.groups).toEqual([{ userAgents: ['durablecrawler', '*'], rules: [{ kind: 'disallow', pattern: '/', line: 5 }], crawlDelaySeconds: 5 }]);
    expect(allowed(rules, '/anything')).toBe(false);
    expect(allowed(rules, '/anything', 'OtherBot')).toBe(false);
  });

  it('does not let a Crawl-delay between consecutive user-agent lines split them', () => {
    const rules = parseRobotsTxt('User-agent: a\nCrawl-delay: 2\nUser-agent: b\nCrawl-delay: 4\nUser-agent: c\nDisallow: /x\nUser-agent: d\nDisallow: /y\n');
    expect(rules.groups.map((group) => group.userAgents)).toEqual([['a', 'b', 'c'], ['d']]);
    expect(rules.groups[0]?.crawlDelaySeconds).toBe(4);
    for (const agent of ['a', 'b', 'c']) expect(allowed(rules, '/x', agent), agent).toBe(false);
    expect(allowed(rules, '/x', 'd')).toBe(true);
  });

  it('keeps a Sitemap line inside a group out of the grouping and records it', () => {
    const rules = parseRobotsTxt('User-agent: a\nSitemap: https://e.com/s.xml\nUser-agent: b\nDisallow: /x\n');
    expect(rules.groups.map((group) => group.userAgents)).toEqual([['a', 'b']]);
    expect(rules.sitemaps).toEqual(['https://e.com/s.xml']);
    expect(allowed(rules, '/x', 'a')).toBe(false);
  });

  it('keeps unknown keys inside a group out of the grouping (Google: Invalid-Unknown-Line)', () => {
    const rules = parseRobotsTxt('User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\nDisallow: /\n');
    expect(rules.groups.map((group) => group.userAgents)).toEqual([['foobot', '*']]);
    expect(allowed(rules, '/', 'FooBot')).toBe(false);
    expect(allowed(rules, '/', 'BarBot')).toBe(false);
  });

  it('ends the agent list at a rule, not at a Crawl-delay after it: the next user-agent starts a new group', () => {
    const rules = parseRobotsTxt('User-agent: a\nDisallow: /x\nCrawl-delay: 3\nUser-agent: b\nDisallow: /y\n');
    expect(rules.groups).toEqual([
      { userAgents: ['a'], rules: [{ kind: 'disallow', pattern: '/x', line: 2 }], crawlDelaySeconds: 3 },
      { userAgents: ['b'], rules: [{ kind: 'disallow', pattern: '/y', line: 5 }] },
    ]);
  });

  it('takes the product token from a user-agent value with a version or comment', () => {
    const rules = parseRobotsTxt('User-agent: DurableCrawler/1.0 (our bot)\nDisallow: /\nUser-agent: *bot\nUser-agent: 123\n');
    expect(rules.groups[0]?.userAgents).toEqual(['durablecrawler']);
    expect(allowed(rules, '/x')).toBe(false);
    // `*bot` is not the wildcard and yields no token; digits are kept.
    expect(rules.groups[1]?.userAgents).toEqual(['123']);
  });

  it('an HTML page served as robots.txt has no rules, so everything is allowed', () => {
    const html = '<!DOCTYPE html>\n<html><head><title>Not Found</title></head>\n<body><h1>Oops: page not found</h1>\n<p>Disallow: this is prose</p></body></html>\n';
    const rules = parseRobotsTxt(html);
    expect(rules.groups).toEqual([]);
    expect(allowed(rules, '/anything')).toBe(true);
    expect(matchRobots(rules, 'DurableCrawler', '/anything').group).toBe('none');
  });
});

describe('parseRobotsTxt: Sitemap and Crawl-delay records', () => {
  it('records absolute http(s) Sitemap URLs anywhere in the file, deduplicated, and skips others', () => {
    const rules = parseRobotsTxt(
      [
        'Sitemap: https://example.com/sitemap.xml',
        'User-agent: *',
        'Sitemap: http://example.com/news.xml # comment',
        'Disallow: /x',
        'sitemap: https://example.com/sitemap.xml',
        'Sitemap: /relative.xml',
        'Sitemap: ftp://example.com/s.xml',
        'Sitemap:',
        'Site-map: https://example.com/other.xml',
      ].join('\n'),
    );
    expect(rules.sitemaps).toEqual(['https://example.com/sitemap.xml', 'http://example.com/news.xml', 'https://example.com/other.xml']);
  });

  it('keeps the largest valid Crawl-delay of a group and ignores invalid ones', () => {
    const rules = parseRobotsTxt('User-agent: *\nCrawl-delay: 2\nCrawl-delay: abc\nCrawl-delay: -5\nCrawl-delay: 7.5\nCrawl-delay: 1e9\nCrawl-delay: 3\n');
    expect(rules.groups[0]?.crawlDelaySeconds).toBe(7.5);
  });
});

describe('parseRobotsTxt: robustness', () => {
  it('never throws on arbitrary text and keeps the result JSON round-trippable', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        const rules = parseRobotsTxt(text);
        expect(JSON.parse(JSON.stringify(rules))).toEqual(rules);
        expect(typeof matchRobots(rules, 'DurableCrawler', '/x').allowed).toBe('boolean');
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        const rules = parseRobotsTxt(bytes);
        expect(rules.parsedBytes).toBe(bytes.length);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on robots-shaped noise, and every rule it keeps starts with / or *', () => {
    const line = fc.oneof(
      fc.constantFrom('User-agent: *', 'User-agent: DurableCrawler', 'Disallow:', 'Allow: /', '', '# c', 'Crawl-delay: 1', 'Sitemap: https://e.com/s'),
      fc.tuple(fc.constantFrom('Disallow', 'Allow', 'User-agent', 'Crawl-delay', 'x'), fc.string({ maxLength: 20 })).map(([key, value]) => `${key}:${value}`),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), fc.constantFrom('\n', '\r\n', '\r'), (lines, eol) => {
        const rules = parseRobotsTxt(lines.join(eol));
        for (const group of rules.groups) for (const rule of group.rules) expect(rule.pattern).toMatch(/^[/*]/);
      }),
      { numRuns: 300 },
    );
  });

  it('rejects a maxBytes that is not a positive integer, with a typed error', () => {
    for (const maxBytes of [0, -1, 1.5, Number.NaN]) {
      try {
        parseRobotsTxt('User-agent: *', { maxBytes });
        expect.unreachable('parseRobotsTxt accepted a bad maxBytes');
      } catch (error) {
        expect(error).toBeInstanceOf(RobotsError);
        expect((error as RobotsError).code).toBe('ROBOTS_OPTIONS_INVALID');
        expect((error as RobotsError).field).toBe('options.maxBytes');
      }
    }
  });
});
