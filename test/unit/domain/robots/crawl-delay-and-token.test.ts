import { describe, expect, it } from 'vitest';
import { crawlDelayMs, MAX_CRAWL_DELAY_MS, parseRobotsTxt, productTokenOf, RobotsError } from '../../../../src/domain/robots/index.js';

const TOKEN = 'DurableCrawler';
const delayOf = (robots: string, agent = TOKEN) => crawlDelayMs(parseRobotsTxt(robots), agent);

describe('crawlDelayMs', () => {
  it('reads an integer number of seconds', () => {
    expect(delayOf('User-agent: *\nCrawl-delay: 5\n')).toBe(5000);
  });

  it('reads fractional seconds', () => {
    expect(delayOf('User-agent: *\nCrawl-delay: 0.5\n')).toBe(500);
    expect(delayOf('User-agent: *\nCrawl-delay: 1.25\n')).toBe(1250);
    expect(delayOf('User-agent: *\nCrawl-delay: .75\n')).toBe(750);
    expect(delayOf('User-agent: *\nCrawl-delay: 2.\n')).toBe(2000);
  });

  it('accepts zero', () => {
    expect(delayOf('User-agent: *\nCrawl-delay: 0\n')).toBe(0);
  });

  it('ignores invalid values: negative, words, units, exponents, empty', () => {
    for (const value of ['-1', 'ten', '10s', '1e3', '', '1,5', 'Infinity', 'NaN', '0x10']) {
      expect(delayOf(`User-agent: *\nCrawl-delay: ${value}\n`), value).toBeUndefined();
    }
  });

  it('accepts the key spelled with a space or without the hyphen', () => {
    expect(delayOf('User-agent: *\nCrawl delay: 3\n')).toBe(3000);
    expect(delayOf('User-agent: *\ncrawldelay: 3\n')).toBe(3000);
  });

  it('clamps to 60 s by default, and to a configured ceiling', () => {
    expect(MAX_CRAWL_DELAY_MS).toBe(60_000);
    expect(delayOf('User-agent: *\nCrawl-delay: 3600\n')).toBe(60_000);
    expect(crawlDelayMs(parseRobotsTxt('User-agent: *\nCrawl-delay: 3600\n'), TOKEN, { maxCrawlDelayMs: 120_000 })).toBe(120_000);
    expect(crawlDelayMs(parseRobotsTxt('User-agent: *\nCrawl-delay: 99999999999999999999\n'), TOKEN)).toBe(60_000);
  });

  it('comes from the selected group only', () => {
    const robots = 'User-agent: *\nDisallow: /a\nCrawl-delay: 10\n\nUser-agent: DurableCrawler\nDisallow: /x\n';
    // Our own group has no Crawl-delay: the * group's does not apply to us.
    expect(delayOf(robots)).toBeUndefined();
    expect(delayOf(robots, 'OtherBot')).toBe(10_000);
    expect(delayOf('User-agent: DurableCrawler\nDisallow: /a\nCrawl-delay: 4\n\nUser-agent: *\nCrawl-delay: 1\n')).toBe(4000);
  });

  it('belongs to the whole group when it sits between the group\'s user-agent lines', () => {
    const robots = 'User-agent: *\nCrawl-delay: 10\n\nUser-agent: DurableCrawler\nDisallow: /x\n';
    expect(delayOf(robots)).toBe(10_000);
    expect(delayOf(robots, 'OtherBot')).toBe(10_000);
    expect(delayOf('User-agent: DurableCrawler\nCrawl-delay: 4\n\nUser-agent: *\nCrawl-delay: 1\n')).toBe(4000);
  });

  it('takes the largest when merged groups disagree', () => {
    expect(delayOf('User-agent: DurableCrawler\nCrawl-delay: 2\n\nUser-agent: DurableCrawler\nCrawl-delay: 7\n')).toBe(7000);
  });

  it('is undefined when no group applies or none sets it', () => {
    expect(delayOf('')).toBeUndefined();
    expect(delayOf('User-agent: Other\nCrawl-delay: 5\n')).toBeUndefined();
    expect(delayOf('User-agent: *\nDisallow: /x\n')).toBeUndefined();
  });

  it('rejects a bad ceiling with a typed error', () => {
    expect(() => crawlDelayMs(parseRobotsTxt(''), TOKEN, { maxCrawlDelayMs: -1 })).toThrow(RobotsError);
  });
});

describe('productTokenOf', () => {
  it.each([
    ['DurableCrawler/0.1 (+https://example.invalid/bot)', 'DurableCrawler'],
    ['DurableCrawler', 'DurableCrawler'],
    ['  durable-crawler_2/1.0', 'durable-crawler_2'],
    ['Googlebot-Image/1.0', 'Googlebot-Image'],
    ['Mozilla/5.0 (compatible; ExampleBot/0.1; https://www.example.com/bot.html)', 'ExampleBot'],
    ['Mozilla/5.0 (X11; Linux x86_64)', 'Mozilla'],
  ])('%s -> %s', (userAgent, token) => {
    expect(productTokenOf(userAgent)).toBe(token);
  });

  it('throws a typed error naming the input when there is no token', () => {
    for (const userAgent of ['', '   ', '/1.0', '(bot)']) {
      try {
        productTokenOf(userAgent);
        expect.unreachable(`accepted ${JSON.stringify(userAgent)}`);
      } catch (error) {
        expect(error).toBeInstanceOf(RobotsError);
        expect((error as RobotsError).code).toBe('ROBOTS_PRODUCT_TOKEN_INVALID');
        expect((error as RobotsError).message).toContain('userAgent');
      }
    }
  });
});
