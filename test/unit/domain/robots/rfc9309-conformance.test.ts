// Every example of RFC 9309, as a table: the robots.txt the RFC shows, the crawler, the path,
// and the verdict the RFC's prose gives. Section numbers refer to RFC 9309.
import { describe, expect, it } from 'vitest';
import { matchRobots, parseRobotsTxt, productTokenOf } from '../../../../src/domain/robots/index.js';

// §5.1 "Simple Example", verbatim (including its trailing "EOF" marker line).
const SIMPLE_EXAMPLE = [
  'User-Agent: *',
  'Disallow: *.gif$',
  'Disallow: /example/',
  'Allow: /publications/',
  '',
  'User-Agent: foobot',
  'Disallow:/',
  'Allow:/example/page.html',
  'Allow:/example/allowed.gif',
  '',
  'User-Agent: barbot',
  'User-Agent: bazbot',
  'Disallow: /example/page.html',
  '',
  'User-Agent: quxbot',
  '',
  'EOF',
].join('\n');

// §5.2 "Longest Match".
const LONGEST_MATCH = 'User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n';

// §2.2.1 Figure 2: two groups for the same product token are merged.
const MERGED = 'user-agent: ExampleBot\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: ExampleBot\ndisallow: /baz\n';

// §2.2.3 Figure 5: the special characters.
const SPECIAL = 'user-agent: *\nallow: / # comment in line\ndisallow: /this/path/exactly$\ndisallow: /that/*/exactly\n';

// §2.2.3 Figure 6: special characters matched literally are written percent-encoded.
const LITERAL_SPECIALS = 'user-agent: *\ndisallow: /path/file-with-a-%2A.html\ndisallow: /path/foo-%24\n';

// §2.2.2 Figure 4: the percent-encoding table, each row as a Disallow rule.
const ENCODING = [
  'user-agent: *',
  'disallow: /foo/bar?baz=quz',
  'disallow: /foo/bar/ツ',
  'disallow: /foo/bar/%62%61%7A',
  'disallow: /q?u=https%3A%2F%2Ffoo.bar',
].join('\n');

type Row = [why: string, robots: string, agent: string, path: string, allowed: boolean];

const TABLE: Row[] = [
  // §5.1, the "*" group: any crawler without a group of its own.
  ['§5.1 * allows /publications/', SIMPLE_EXAMPLE, 'unknownbot', '/publications/report.html', true],
  ['§5.1 * disallows /example/', SIMPLE_EXAMPLE, 'unknownbot', '/example/', false],
  ['§5.1 * disallows below /example/', SIMPLE_EXAMPLE, 'unknownbot', '/example/sub/page.html', false],
  ['§5.1 * disallows *.gif$', SIMPLE_EXAMPLE, 'unknownbot', '/images/cat.gif', false],
  ['§5.1 $ anchors: a query after .gif escapes *.gif$', SIMPLE_EXAMPLE, 'unknownbot', '/cat.gif?size=2', true],
  ['§5.1 /publications/ (14) beats *.gif$ (6)', SIMPLE_EXAMPLE, 'unknownbot', '/publications/cover.gif', true],
  ['§5.1 * allows what no rule matches', SIMPLE_EXAMPLE, 'unknownbot', '/', true],
  // §5.1, foobot: only the two allowed paths.
  ['§5.1 foobot may fetch /example/page.html', SIMPLE_EXAMPLE, 'foobot', '/example/page.html', true],
  ['§5.1 foobot may fetch /example/allowed.gif', SIMPLE_EXAMPLE, 'foobot', '/example/allowed.gif', true],
  ['§5.1 foobot: Disallow:/ covers the rest', SIMPLE_EXAMPLE, 'foobot', '/example/other.html', false],
  ['§5.1 foobot does not inherit the * Allow', SIMPLE_EXAMPLE, 'foobot', '/publications/', false],
  ['§5.1 foobot: Disallow:/ covers /', SIMPLE_EXAMPLE, 'foobot', '/', false],
  ['§2.2.1 product tokens match case-insensitively', SIMPLE_EXAMPLE, 'FooBot', '/example/other.html', false],
  // §5.1, barbot and bazbot share a group.
  ['§5.1 barbot: /example/page.html disallowed', SIMPLE_EXAMPLE, 'barbot', '/example/page.html', false],
  ['§5.1 bazbot: same group as barbot', SIMPLE_EXAMPLE, 'bazbot', '/example/page.html', false],
  ['§5.1 barbot does not inherit * Disallow: /example/', SIMPLE_EXAMPLE, 'barbot', '/example/other.html', true],
  ['§5.1 bazbot does not inherit * Disallow: *.gif$', SIMPLE_EXAMPLE, 'bazbot', '/images/cat.gif', true],
  // §5.1, quxbot: a group with no rules allows everything.
  ['§5.1 quxbot: empty group allows /example/', SIMPLE_EXAMPLE, 'quxbot', '/example/page.html', true],
  ['§5.1 quxbot: empty group allows .gif', SIMPLE_EXAMPLE, 'quxbot', '/images/cat.gif', true],
  // §5.2 longest match.
  ['§5.2 the longer Disallow wins', LONGEST_MATCH, 'foobot', '/example/page/disallowed.gif', false],
  ['§5.2 Allow: /example/page/', LONGEST_MATCH, 'foobot', '/example/page/', true],
  ['§5.2 only the Allow matches', LONGEST_MATCH, 'foobot', '/example/page/other.gif', true],
  ['§2.2.1 no group for us and no *: no rules apply', LONGEST_MATCH, 'otherbot', '/example/page/disallowed.gif', true],
  // §2.2.1 Figure 2: merged groups.
  ['§2.2.1 merged group: /foo', MERGED, 'ExampleBot', '/foo', false],
  ['§2.2.1 merged group: /bar', MERGED, 'ExampleBot', '/bar', false],
  ['§2.2.1 merged group: /baz from the second group', MERGED, 'examplebot', '/baz', false],
  ['§2.2.1 merged group: nothing else', MERGED, 'ExampleBot', '/qux', true],
  // §2.2.3 Figure 5.
  ['§2.2.3 $ matches the exact path', SPECIAL, 'anybot', '/this/path/exactly', false],
  ['§2.2.3 $ ends the pattern', SPECIAL, 'anybot', '/this/path/exactly/not', true],
  ['§2.2.3 * matches one segment', SPECIAL, 'anybot', '/that/one/exactly', false],
  ['§2.2.3 * matches across /', SPECIAL, 'anybot', '/that/one/two/exactly', false],
  ['§2.2.3 /that/*/exactly needs both slashes', SPECIAL, 'anybot', '/that/exactly', true],
  ['§2.2.3 # starts a comment: allow: / still applies', SPECIAL, 'anybot', '/anything', true],
  // §2.2.3 Figure 6.
  ['§2.2.3 %2A matches a literal *', LITERAL_SPECIALS, 'anybot', '/path/file-with-a-*.html', false],
  ['§2.2.3 %2A is not a wildcard', LITERAL_SPECIALS, 'anybot', '/path/file-with-a-x.html', true],
  ['§2.2.3 %24 matches a literal $', LITERAL_SPECIALS, 'anybot', '/path/foo-$', false],
  ['§2.2.3 %24 is no end anchor: the $ itself must be there', LITERAL_SPECIALS, 'anybot', '/path/foo-', true],
  ['§2.2.3 %24 then more is still a prefix match', LITERAL_SPECIALS, 'anybot', '/path/foo-$/x', false],
  // §2.2.2 Figure 4.
  ['§2.2.2 a query is matched as is', ENCODING, 'anybot', '/foo/bar?baz=quz', false],
  ['§2.2.2 UTF-8 pattern matches its encoded path', ENCODING, 'anybot', '/foo/bar/%E3%83%84', false],
  ['§2.2.2 hex case does not matter', ENCODING, 'anybot', '/foo/bar/%e3%83%84', false],
  ['§2.2.2 a raw UTF-8 path is encoded before matching', ENCODING, 'anybot', '/foo/bar/ツ', false],
  ['§2.2.2 %62%61%7A is matched as baz', ENCODING, 'anybot', '/foo/bar/baz', false],
  ['§2.2.2 and baz as %62%61%7a', ENCODING, 'anybot', '/foo/bar/%62%61%7a', false],
  ['§2.2.2 encoded reserved octets compare by value', ENCODING, 'anybot', '/q?u=https%3a%2f%2ffoo.bar', false],
  ['§2.2.2 no rule matches', ENCODING, 'anybot', '/foo/bar/other', true],
  // §2.2.2: /robots.txt is implicitly allowed.
  ['§2.2.2 /robots.txt is always allowed', 'user-agent: *\ndisallow: /\n', 'anybot', '/robots.txt', true],
  ['§2.2.2 even when named by a Disallow', 'user-agent: *\ndisallow: /robots.txt\n', 'anybot', '/robots.txt', true],
  // §2.2.2: Allow wins an equivalent match.
  ['§2.2.2 Allow wins a tie', 'user-agent: *\ndisallow: /page\nallow: /page\n', 'anybot', '/page', true],
  // §2.2.1: no group at all means no rules apply.
  ['§2.2.1 no groups: allowed', '', 'anybot', '/anything', true],
];

describe('RFC 9309 conformance table', () => {
  it.each(TABLE)('%s', (_why, robots, agent, path, allowed) => {
    expect(matchRobots(parseRobotsTxt(robots), agent, path).allowed).toBe(allowed);
  });
});

describe('RFC 9309 examples, in detail', () => {
  it('§2.2.1 Figure 1: finds the token in a browser-style User-Agent', () => {
    const userAgent = 'Mozilla/5.0 (compatible; ExampleBot/0.1; https://www.example.com/bot.html)';
    expect(productTokenOf(userAgent)).toBe('ExampleBot');
    const rules = parseRobotsTxt('user-agent: ExampleBot\ndisallow: /private\n');
    expect(matchRobots(rules, productTokenOf(userAgent), '/private/x')).toMatchObject({ allowed: false, group: 'specific' });
  });

  it('§5.1: parses four groups and reports the group and rule that decided', () => {
    const rules = parseRobotsTxt(SIMPLE_EXAMPLE);
    expect(rules.groups.map((group) => group.userAgents)).toEqual([['*'], ['foobot'], ['barbot', 'bazbot'], ['quxbot']]);
    expect(rules.groups[3]?.rules).toEqual([]);
    expect(matchRobots(rules, 'foobot', '/example/allowed.gif')).toEqual({
      allowed: true,
      matched: { kind: 'allow', pattern: '/example/allowed.gif', line: 9 },
      group: 'specific',
    });
    expect(matchRobots(rules, 'otherbot', '/x.gif')).toEqual({
      allowed: false,
      matched: { kind: 'disallow', pattern: '*.gif$', line: 2 },
      group: 'wildcard',
    });
    expect(matchRobots(rules, 'quxbot', '/x.gif')).toEqual({ allowed: true, group: 'specific' });
    expect(matchRobots(parseRobotsTxt(LONGEST_MATCH), 'otherbot', '/x')).toEqual({ allowed: true, group: 'none' });
  });

  it('§5.2: the decision names the longer rule', () => {
    expect(matchRobots(parseRobotsTxt(LONGEST_MATCH), 'foobot', '/example/page/disallowed.gif').matched).toEqual({
      kind: 'disallow',
      pattern: '/example/page/disallowed.gif',
      line: 3,
    });
  });
});
