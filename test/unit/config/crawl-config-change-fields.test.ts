import { describe, expect, it } from 'vitest';
import { CrawlConfigError, DEFAULT_CRAWL_CONFIG, MAX_CHANGE_FIELDS, resolveCrawlConfig } from '../../../src/config/crawl-config.js';

/** The error resolveCrawlConfig throws for `changeFields`, or a failure when it throws none. */
const errorOf = (changeFields: unknown): CrawlConfigError => {
  try {
    resolveCrawlConfig({ changeFields: changeFields as Record<string, string> });
  } catch (error) {
    expect(error).toBeInstanceOf(CrawlConfigError);
    return error as CrawlConfigError;
  }
  throw new Error(`expected a CrawlConfigError for ${JSON.stringify(changeFields)}`);
};

describe('crawl config: change fields', () => {
  it('has none by default: the main text decides', () => {
    expect(DEFAULT_CRAWL_CONFIG.changeFields).toEqual({});
    expect(resolveCrawlConfig().changeFields).toEqual({});
  });

  it('keeps valid fields as given', () => {
    const changeFields = { price: '.price', stock: '#availability', 'sale_price-2': 'span[itemprop="price"]', total: 'td:contains("Total") + td' };
    expect(resolveCrawlConfig({ changeFields }).changeFields).toEqual(changeFields);
    const most = Object.fromEntries(Array.from({ length: MAX_CHANGE_FIELDS }, (_, i) => [`f${i}`, `.c${i}`]));
    expect(Object.keys(resolveCrawlConfig({ changeFields: most }).changeFields)).toHaveLength(MAX_CHANGE_FIELDS);
  });

  it.each([
    ['an array', [['price', '.price']]],
    ['a string', '.price'],
    ['a number', 1],
  ])('rejects %s instead of an object', (_, changeFields) => {
    const error = errorOf(changeFields);
    expect(error.field).toBe('changeFields');
    expect(error.message).toMatch(/field name to CSS selector/);
  });

  it(`rejects more than ${MAX_CHANGE_FIELDS} fields`, () => {
    const tooMany = Object.fromEntries(Array.from({ length: MAX_CHANGE_FIELDS + 1 }, (_, i) => [`f${i}`, `.c${i}`]));
    expect(errorOf(tooMany)).toMatchObject({ field: 'changeFields', message: expect.stringMatching(/at most 32 fields, got 33/) });
  });

  it.each(['Price', '1st', '_price', 'price tag', 'préis', '', 'p'.repeat(65)])('rejects the field name %j, naming it', (name) => {
    const error = errorOf({ [name]: '.price' });
    expect(error.field).toBe(`changeFields.${name}`);
    expect(error.message).toMatch(/lowercase letters, digits/);
  });

  it.each([
    ['an empty selector', '', /non-empty CSS selector/],
    ['a blank selector', '   ', /non-empty CSS selector/],
    ['a number', 42, /non-empty CSS selector/],
    ['a selector too long', `.${'a'.repeat(1000)}`, /at most 1000/],
    ['a syntax error', '.price[', /"\.price\[" is not a CSS selector cheerio can apply \(Expected name.*\); fix it/],
    ['a pseudo-element', '.price::after', /Pseudo-elements are not supported.*or remove the field/],
    ['an unknown pseudo-class', '.price:cheapest', /Unknown pseudo-class :cheapest/],
  ])('rejects %s, naming the field and what to do', (_, selector, message) => {
    const error = errorOf({ stock: '#availability', price: selector });
    expect(error.field).toBe('changeFields.price');
    expect(error.message).toMatch(/^changeFields\.price: /);
    expect(error.message).toMatch(message);
  });
});
