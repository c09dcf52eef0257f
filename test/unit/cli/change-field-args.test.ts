import { describe, expect, it } from 'vitest';
import { changeFieldsOption } from '../../../src/cli/args.js';
import { CliError } from '../../../src/cli/cli-error.js';
import { buildConfig } from '../../../src/cli/crawl/crawl-flags.js';
import { buildCreateInput } from '../../../src/cli/commands/schedule.js';
import { flagOfConfigField } from '../../../src/cli/config-flags.js';

describe('--change-field NAME=SELECTOR', () => {
  it('collects repeated flags, splitting at the first "=" only', () => {
    expect(changeFieldsOption(undefined)).toBeUndefined();
    expect(changeFieldsOption([])).toBeUndefined();
    expect(changeFieldsOption(['price=.price', ' stock = #availability ', 'sale=[itemprop=price]'])).toEqual({
      price: '.price',
      stock: '#availability',
      sale: '[itemprop=price]',
    });
  });

  it.each([
    [['price'], /expects NAME=SELECTOR, e\.g\. --change-field price=\.price, got 'price'/],
    [['=.price'], /expects NAME=SELECTOR/],
    [['price=.price', 'price=.cost'], /--change-field price is given twice/],
  ])('rejects %j with exit code 2', (values, message) => {
    expect(() => changeFieldsOption(values)).toThrow(CliError);
    expect(() => changeFieldsOption(values)).toThrow(message);
    try {
      changeFieldsOption(values);
    } catch (error) {
      expect((error as CliError).exitCode).toBe(2);
    }
  });

  it('becomes the crawl config of crawler crawl, and a bad selector names the flag before anything starts', async () => {
    expect((await buildConfig({ 'change-field': ['price=.price', 'stock=#availability'] })).changeFields).toEqual({ price: '.price', stock: '#availability' });
    expect((await buildConfig({})).changeFields).toEqual({});
    await expect(buildConfig({ 'change-field': ['price=.price['] })).rejects.toThrow(
      /^invalid option --change-field: changeFields\.price: "\.price\[" is not a CSS selector cheerio can apply/,
    );
    await expect(buildConfig({ 'change-field': ['Price=.price'] })).rejects.toThrow(/--change-field: changeFields\.Price: field names are/);
  });

  it('becomes the config of the cycles of crawler schedule create', () => {
    const input = buildCreateInput({ every: '1h', budget: '10', 'change-field': ['price=.price'] });
    expect(input.config.changeFields).toEqual({ price: '.price' });
    expect(buildCreateInput({ every: '1h', budget: '10' }).config.changeFields).toEqual({});
    expect(() => buildCreateInput({ every: '1h', budget: '10', 'change-field': ['price=p::before'] })).toThrow(/^invalid option --change-field: changeFields\.price: .*Pseudo-elements/);
  });

  it('names the flag of other config fields as before', () => {
    expect(flagOfConfigField('maxDepth')).toBe('--max-depth');
    expect(flagOfConfigField('scope.mode')).toBe('--scope');
    expect(flagOfConfigField('politeness.retryDelayScale')).toBe('--politeness');
    expect(flagOfConfigField('changeFields')).toBe('--change-field');
  });
});
