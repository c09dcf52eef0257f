import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonicalOctets,
  compileRobotsMatcher,
  matchRobots,
  parseRobotsTxt,
  selectRobotsGroup,
} from '../../../../src/domain/robots/index.js';

const TOKEN = 'DurableCrawler';
const verdictOf = (robots: string, path: string, agent = TOKEN) => matchRobots(parseRobotsTxt(robots), agent, path);
const allowed = (robots: string, path: string, agent = TOKEN): boolean => verdictOf(robots, path, agent).allowed;

describe('group selection', () => {
  const robots = 'User-agent: *\nDisallow: /all\n\nUser-agent: DurableCrawler\nDisallow: /ours\n';

  it('uses our group, and only ours, when one names our product token', () => {
    expect(verdictOf(robots, '/ours')).toMatchObject({ allowed: false, group: 'specific' });
    expect(verdictOf(robots, '/all')).toMatchObject({ allowed: true, group: 'specific' });
  });

  it('falls back to the * group when none names us', () => {
    expect(verdictOf(robots, '/all', 'OtherBot')).toMatchObject({ allowed: false, group: 'wildcard' });
    expect(verdictOf(robots, '/ours', 'OtherBot')).toMatchObject({ allowed: true, group: 'wildcard' });
  });

  it('matches the product token case-insensitively on both sides', () => {
    expect(allowed('User-agent: DURABLECRAWLER\nDisallow: /x\n', '/x', 'durablecrawler')).toBe(false);
    expect(allowed('User-agent: durablecrawler\nDisallow: /x\n', '/x', 'DurableCrawler')).toBe(false);
  });

  it('needs the whole token: a prefix or a longer name is another crawler', () => {
    expect(allowed('User-agent: Durable\nDisallow: /x\n', '/x')).toBe(true);
    expect(allowed('User-agent: DurableCrawlerPro\nDisallow: /x\n', '/x')).toBe(true);
  });

  it('reduces a full User-Agent passed as the token to its product token', () => {
    expect(allowed('User-agent: DurableCrawler\nDisallow: /x\n', '/x', 'DurableCrawler/0.1 (+https://example.invalid/bot)')).toBe(false);
  });

  it('merges every group that names us, wherever they are in the file', () => {
    const merged = 'User-agent: DurableCrawler\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n\nUser-agent: durablecrawler\nDisallow: /c\nCrawl-delay: 3\n';
    expect(allowed(merged, '/a')).toBe(false);
    expect(allowed(merged, '/c')).toBe(false);
    expect(allowed(merged, '/b')).toBe(true);
    const selected = selectRobotsGroup(parseRobotsTxt(merged), TOKEN);
    expect(selected.rules.map((rule) => rule.pattern)).toEqual(['/a', '/c']);
    expect(selected.crawlDelaySeconds).toBe(3);
  });

  it('merges several * groups', () => {
    expect(allowed('User-agent: *\nDisallow: /a\n\nUser-agent: other\nDisallow: /\n\nUser-agent: *\nDisallow: /b\n', '/b')).toBe(false);
  });

  it('applies a group with several user-agent lines to each of them', () => {
    const robots2 = 'User-agent: AlphaBot\nUser-agent: DurableCrawler\nUser-agent: GammaBot\nDisallow: /shared\n';
    for (const agent of ['AlphaBot', 'DurableCrawler', 'GammaBot']) expect(allowed(robots2, '/shared', agent), agent).toBe(false);
    expect(allowed(robots2, '/shared', 'DeltaBot')).toBe(true);
  });

  it('a group that both names us and * applies to everyone', () => {
    const robots2 = 'User-agent: DurableCrawler\nUser-agent: *\nDisallow: /x\n';
    expect(verdictOf(robots2, '/x')).toMatchObject({ allowed: false, group: 'specific' });
    expect(verdictOf(robots2, '/x', 'Other')).toMatchObject({ allowed: false, group: 'wildcard' });
  });

  it('an empty token sees only the * group', () => {
    expect(verdictOf(robots, '/all', '')).toMatchObject({ allowed: false, group: 'wildcard' });
  });
});

describe('longest match and ties', () => {
  it('the matching rule with the most octets wins, in either order', () => {
    expect(allowed('User-agent: *\nAllow: /p\nDisallow: /\n', '/page')).toBe(true);
    expect(allowed('User-agent: *\nDisallow: /\nAllow: /p\n', '/page')).toBe(true);
    expect(allowed('User-agent: *\nAllow: /p\nDisallow: /\n', '/other')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /folder/sub\nAllow: /folder\n', '/folder/sub/page')).toBe(false);
  });

  it('Allow wins an equally long Disallow, in either order', () => {
    expect(verdictOf('User-agent: *\nDisallow: /folder\nAllow: /folder\n', '/folder/page').matched).toEqual({ kind: 'allow', pattern: '/folder', line: 3 });
    expect(verdictOf('User-agent: *\nAllow: /folder\nDisallow: /folder\n', '/folder/page').matched).toEqual({ kind: 'allow', pattern: '/folder', line: 2 });
  });

  it('counts wildcard characters as octets of the pattern', () => {
    // "/*.ph" and "/page" are both 5 octets: a tie, so Allow.
    expect(allowed('User-agent: *\nAllow: /page\nDisallow: /*.ph\n', '/page.php5')).toBe(true);
    // "/*.htm" (6) is longer than "/page" (5).
    expect(allowed('User-agent: *\nAllow: /page\nDisallow: /*.htm\n', '/page.htm')).toBe(false);
    // "/$" (2) is longer than "/" (1), but only matches "/".
    expect(allowed('User-agent: *\nAllow: /$\nDisallow: /\n', '/')).toBe(true);
    expect(allowed('User-agent: *\nAllow: /$\nDisallow: /\n', '/page.htm')).toBe(false);
  });

  it('compares lengths in canonical octets, so spelling does not change precedence', () => {
    // "/%7Ea" and "/~a" are the same 3 octets: a tie, so Allow, whichever is spelled how.
    expect(allowed('User-agent: *\nDisallow: /%7Ea\nAllow: /~a\n', '/~a/x')).toBe(true);
    expect(allowed('User-agent: *\nDisallow: /~a\nAllow: /%7ea\n', '/%7Ea/x')).toBe(true);
  });

  it('is prefix matching: /tmp/ does not cover /tmp, /tmp covers /tmp.html', () => {
    expect(allowed('User-agent: *\nDisallow: /tmp/\n', '/tmp')).toBe(true);
    expect(allowed('User-agent: *\nDisallow: /tmp/\n', '/tmp/a.html')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /tmp\n', '/tmp.html')).toBe(false);
  });

  it('matches case-sensitively', () => {
    expect(allowed('User-agent: *\nDisallow: /Private\n', '/private')).toBe(true);
    expect(allowed('User-agent: *\nDisallow: /Private\n', '/Private')).toBe(false);
  });

  it('includes the query in the matched path', () => {
    expect(allowed('User-agent: *\nDisallow: /*?sort=\n', '/list?sort=price')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /*?sort=\n', '/list')).toBe(true);
    expect(allowed('User-agent: *\nDisallow: /search?q=\n', '/search?q=x')).toBe(false);
  });
});

describe('wildcards', () => {
  it('* in the middle matches any run, slashes included, and the empty run', () => {
    const robots = 'User-agent: *\nDisallow: /a*b/c\n';
    expect(allowed(robots, '/ab/c')).toBe(false);
    expect(allowed(robots, '/a/x/y/b/c')).toBe(false);
    expect(allowed(robots, '/a/x/y/b/d')).toBe(true);
    expect(allowed(robots, '/xa/b/c')).toBe(true);
  });

  it('several * and a $ together', () => {
    const robots = 'User-agent: *\nDisallow: /*/private/*.pdf$\n';
    expect(allowed(robots, '/team/private/report.pdf')).toBe(false);
    expect(allowed(robots, '/team/private/a/b.pdf')).toBe(false);
    expect(allowed(robots, '/team/private/report.pdf?download=1')).toBe(true);
    expect(allowed(robots, '/team/public/report.pdf')).toBe(true);
  });

  it('with $, the last run must come after the earlier ones, not overlap them', () => {
    const robots = 'User-agent: *\nDisallow: /*ab*b$\n';
    expect(allowed(robots, '/ab')).toBe(true);
    expect(allowed(robots, '/abb')).toBe(false);
    expect(allowed(robots, '/xabyb')).toBe(false);
  });

  it('a trailing * is the same as none', () => {
    expect(allowed('User-agent: *\nDisallow: /fish*\n', '/fish')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /fish*\n', '/fishheads/x')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /fish*\n', '/Fish')).toBe(true);
  });

  it('$ anchors only at the end; a $ inside a pattern is a literal dollar', () => {
    expect(allowed('User-agent: *\nDisallow: /exact$\n', '/exact')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /exact$\n', '/exact/')).toBe(true);
    expect(allowed('User-agent: *\nDisallow: /a$b\n', '/a$b/c')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /a$b\n', '/a')).toBe(true);
  });

  it('a pattern of wildcards and literals that could backtrack badly stays fast', () => {
    const robots = `User-agent: *\nDisallow: /${'*a'.repeat(200)}b$\n`;
    const path = `/${'a'.repeat(20_000)}`;
    const started = performance.now();
    expect(allowed(robots, path)).toBe(true);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('percent-encoding', () => {
  it('hex case in escapes does not matter, either side (RFC 2.2.2, 1996 draft table)', () => {
    expect(allowed('User-agent: *\nDisallow: /a%3cd.html\n', '/a%3Cd.html')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /a%3Cd.html\n', '/a%3cd.html')).toBe(false);
  });

  it('an escaped unreserved character equals the character, either side', () => {
    expect(allowed('User-agent: *\nDisallow: /%7ejoe/\n', '/~joe/index.html')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /~joe/\n', '/%7Ejoe/index.html')).toBe(false);
  });

  it('an escaped slash is not a slash, either side', () => {
    expect(allowed('User-agent: *\nDisallow: /a%2fb.html\n', '/a/b.html')).toBe(true);
    expect(allowed('User-agent: *\nDisallow: /a/b.html\n', '/a%2fb.html')).toBe(true);
    expect(allowed('User-agent: *\nDisallow: /a%2fb.html\n', '/a%2Fb.html')).toBe(false);
  });

  it('non-ASCII patterns match paths written raw or encoded, and the reverse', () => {
    expect(allowed('User-agent: *\nDisallow: /카테고리/\n', '/%EC%B9%B4%ED%85%8C%EA%B3%A0%EB%A6%AC/1')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /%ec%b9%b4%ed%85%8c%ea%b3%a0%eb%a6%ac/\n', '/카테고리/1')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /카테고리/\n', '/카테고리/1')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /카테고리/\n', '/카테/')).toBe(true);
  });

  it('characters outside ASCII above the BMP and spaces are encoded consistently', () => {
    expect(allowed('User-agent: *\nDisallow: /😀\n', '/%F0%9F%98%80x')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /a b\n', '/a%20b')).toBe(false);
  });

  it('a stray % is a literal percent on both sides', () => {
    expect(allowed('User-agent: *\nDisallow: /100%\n', '/100%25')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /100%zz\n', '/100%zz')).toBe(false);
  });

  it('canonicalOctets: the documented canonical spellings', () => {
    expect(canonicalOctets('/foo/bar/ツ')).toBe('/foo/bar/%E3%83%84');
    expect(canonicalOctets('/foo/bar/%62%61%7A')).toBe('/foo/bar/baz');
    expect(canonicalOctets('/a%3cd')).toBe('/a%3Cd');
    expect(canonicalOctets('/a*b$')).toBe('/a%2Ab%24');
    expect(canonicalOctets('/a%2fb')).toBe('/a%2Fb');
    expect(canonicalOctets('/x?y=1&z=/:@')).toBe('/x?y=1&z=/:@');
  });

  it('canonicalOctets is idempotent', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (text) => {
        const once = canonicalOctets(text);
        expect(canonicalOctets(once)).toBe(once);
      }),
      { numRuns: 500 },
    );
  });

  it('escaping any unreserved character of a path never changes the verdict', () => {
    const unreserved = fc.constantFrom(...'abcXYZ019-._~/'.split(''));
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /a\nAllow: /a/b\nDisallow: /*~$\nAllow: /x.y\n');
    fc.assert(
      fc.property(fc.array(fc.tuple(unreserved, fc.boolean()), { maxLength: 12 }), (chars) => {
        const raw = `/${chars.map(([c]) => c).join('')}`;
        const escaped = `/${chars.map(([c, esc]) => (esc && c !== '/' ? `%${c.charCodeAt(0).toString(16).toUpperCase()}` : c)).join('')}`;
        expect(matchRobots(robots, TOKEN, escaped)).toEqual(matchRobots(robots, TOKEN, raw));
      }),
      { numRuns: 300 },
    );
  });
});

describe('paths given to the matcher', () => {
  const robots = 'User-agent: *\nDisallow: /\n';

  it('/robots.txt is always allowed, with or without a query', () => {
    expect(verdictOf(robots, '/robots.txt')).toEqual({ allowed: true, group: 'wildcard' });
    expect(allowed(robots, '/robots.txt?x=1')).toBe(true);
    expect(allowed(robots, '/robots.txt/x')).toBe(false);
    expect(allowed(robots, '/ROBOTS.TXT')).toBe(false);
  });

  it('ignores a fragment', () => {
    expect(allowed('User-agent: *\nDisallow: /a$\n', '/a#section')).toBe(false);
  });

  it('reduces an absolute URL to its path and query', () => {
    expect(allowed('User-agent: *\nDisallow: /private\n', 'https://example.com:8443/private/x?y')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /private\n', 'https://example.com')).toBe(true);
  });

  it('treats an empty path as /', () => {
    expect(allowed('User-agent: *\nDisallow: /$\n', '')).toBe(false);
  });

  it('a compiled matcher gives the same verdicts as matchRobots', () => {
    const rules = parseRobotsTxt('User-agent: *\nDisallow: /a\nAllow: /a/b\nDisallow: /*.gif$\n');
    const match = compileRobotsMatcher(rules, TOKEN);
    for (const path of ['/', '/a', '/a/b', '/a/c', '/x.gif', '/x.gif?1', '/robots.txt']) {
      expect(match(path), path).toEqual(matchRobots(rules, TOKEN, path));
    }
  });

  it('matches from a JSON round trip exactly as from the parse (jsonb storage)', () => {
    const rules = parseRobotsTxt('User-agent: *\nDisallow: /a\nAllow: /a/ツ\nCrawl-delay: 2\nSitemap: https://e.com/s.xml\n');
    const stored = JSON.parse(JSON.stringify(rules)) as typeof rules;
    for (const path of ['/a', '/a/%E3%83%84', '/b']) expect(matchRobots(stored, TOKEN, path)).toEqual(matchRobots(rules, TOKEN, path));
  });
});
