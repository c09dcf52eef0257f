import { describe, expect, it } from 'vitest';
import { DEFAULT_ROBOTS_MAX_BYTES, matchRobots, parseRobotsTxt } from '../../../../src/domain/robots/index.js';

const KIB = 1024;
const TOKEN = 'DurableCrawler';

/** A robots body of comment filler up to `fillBytes`, then `tail`; all ASCII, so bytes = chars. */
function paddedBody(fillBytes: number, tail: string): string {
  const head = 'User-agent: *\nDisallow: /early\n';
  const line = `# ${'x'.repeat(97)}\n`; // 100 bytes
  let body = head;
  while (body.length + line.length <= fillBytes) body += line;
  body += '#'.repeat(Math.max(0, fillBytes - body.length - 1)) + '\n';
  return body + tail;
}

describe('the parse limit (RFC 9309 §2.5: at least 500 KiB)', () => {
  it('defaults to 512 KiB', () => {
    expect(DEFAULT_ROBOTS_MAX_BYTES).toBe(512 * KIB);
    expect(DEFAULT_ROBOTS_MAX_BYTES).toBeGreaterThanOrEqual(500 * KIB);
  });

  it('obeys rules just short of 500 KiB and ignores rules past the limit', () => {
    const near500 = paddedBody(500 * KIB - 40, 'Disallow: /near-500k\n');
    expect(near500.length).toBeLessThan(500 * KIB);
    const body = paddedBody(600 * KIB, 'Disallow: /past-limit\n').replace(/^User-agent: \*\nDisallow: \/early\n/, near500);
    expect(body.length).toBeGreaterThan(DEFAULT_ROBOTS_MAX_BYTES);
    const rules = parseRobotsTxt(body);
    expect(rules.truncated).toBe(true);
    expect(matchRobots(rules, TOKEN, '/early').allowed).toBe(false);
    expect(matchRobots(rules, TOKEN, '/near-500k').allowed).toBe(false);
    expect(matchRobots(rules, TOKEN, '/past-limit').allowed).toBe(true);
  });

  it('obeys a rule whose line ends exactly at the limit, from bytes as from a string', () => {
    const rule = 'Disallow: /at-the-edge\n';
    const body = paddedBody(DEFAULT_ROBOTS_MAX_BYTES - rule.length, rule) + 'Disallow: /beyond\n';
    for (const input of [body, new TextEncoder().encode(body)]) {
      const rules = parseRobotsTxt(input);
      expect(rules.truncated).toBe(true);
      expect(rules.parsedBytes).toBe(DEFAULT_ROBOTS_MAX_BYTES);
      expect(matchRobots(rules, TOKEN, '/at-the-edge').allowed).toBe(false);
      expect(matchRobots(rules, TOKEN, '/beyond').allowed).toBe(true);
    }
  });

  it('keeps a line whose last character is the last byte allowed, its line break just past the limit', () => {
    const body = 'User-agent: *\nDisallow: /abc\r\nDisallow: /def\n';
    const maxBytes = body.indexOf('/abc') + 4;
    for (const input of [body, new TextEncoder().encode(body)]) {
      const rules = parseRobotsTxt(input, { maxBytes });
      expect(rules).toMatchObject({ truncated: true, parsedBytes: maxBytes });
      expect(rules.groups[0]?.rules.map((rule) => rule.pattern)).toEqual(['/abc']);
    }
  });

  it('drops the line the limit cuts through rather than obey half of it', () => {
    // Cut mid-line, "Allow: /public-area-only" would read as "Allow: /p" and allow far too much.
    const body = 'User-agent: *\nDisallow: /\nAllow: /public-area-only\n';
    const cutAt = body.indexOf('/public') + 2;
    const rules = parseRobotsTxt(body, { maxBytes: cutAt });
    expect(rules).toMatchObject({ truncated: true, parsedBytes: body.indexOf('Allow') });
    expect(rules.groups[0]?.rules.map((rule) => rule.pattern)).toEqual(['/']);
    expect(matchRobots(rules, TOKEN, '/private').allowed).toBe(false);
  });

  it('counts UTF-8 bytes, not characters, for string bodies', () => {
    const body = 'User-agent: *\nDisallow: /ツツ\nDisallow: /next\n';
    // "/ツツ" line is 10 + 1 + 6 + 1 = 18 bytes but 14 characters.
    const firstTwoLines = new TextEncoder().encode('User-agent: *\nDisallow: /ツツ\n').length;
    const rules = parseRobotsTxt(body, { maxBytes: firstTwoLines + 3 });
    expect(rules.parsedBytes).toBe(firstTwoLines);
    expect(matchRobots(rules, TOKEN, '/ツツ').allowed).toBe(false);
    expect(matchRobots(rules, TOKEN, '/next').allowed).toBe(true);
  });

  it('reports the whole body as parsed when it fits', () => {
    const body = 'User-agent: *\nDisallow: /ツ\n';
    expect(parseRobotsTxt(body)).toMatchObject({ truncated: false, parsedBytes: new TextEncoder().encode(body).length });
  });

  it('a single line longer than the limit yields nothing', () => {
    const rules = parseRobotsTxt(`User-agent: *${' '.repeat(100)}\nDisallow: /`, { maxBytes: 50 });
    expect(rules).toEqual({ groups: [], sitemaps: [], parsedBytes: 0, truncated: true });
  });

  it('parses a full 512 KiB file of rules quickly', () => {
    let body = 'User-agent: *\n';
    for (let i = 0; body.length < DEFAULT_ROBOTS_MAX_BYTES; i++) body += `Disallow: /section-${i}/*/page-${i}.html$\n`;
    const started = performance.now();
    const rules = parseRobotsTxt(body);
    const verdict = matchRobots(rules, TOKEN, '/section-5000/x/page-5000.html');
    expect(verdict.allowed).toBe(false);
    expect(rules.groups[0]?.rules.length).toBeGreaterThan(10_000);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
