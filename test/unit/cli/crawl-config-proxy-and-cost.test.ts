import { describe, expect, it } from 'vitest';
import { CliError } from '../../../src/cli/cli-error.js';
import { costModelOption, proxyOption } from '../../../src/cli/args.js';
import { flagOfConfigField } from '../../../src/cli/config-flags.js';
import { CrawlConfigError, resolveCrawlConfig, type CrawlProxyConfig } from '../../../src/config/crawl-config.js';

const resolve = (proxy: Partial<CrawlProxyConfig>) => resolveCrawlConfig({ proxy: proxy as CrawlProxyConfig });

function refusal(proxy: unknown): CrawlConfigError {
  try {
    resolveCrawlConfig({ proxy: proxy as CrawlProxyConfig });
  } catch (error) {
    expect(error).toBeInstanceOf(CrawlConfigError);
    return error as CrawlConfigError;
  }
  throw new Error('expected a CrawlConfigError');
}

describe('CrawlConfig.proxy', () => {
  it('is absent by default: requests go direct', () => {
    expect(resolveCrawlConfig({}).proxy).toBeUndefined();
  });

  it('stores each proxy as its origin, with the default session', () => {
    expect(resolve({ urls: ['http://Gateway.example:8000/', 'https://second.example'] })).toMatchObject({
      proxy: { urls: ['http://gateway.example:8000', 'https://second.example'], sessionRequests: 100 },
    });
    expect(resolve({ urls: ['http://127.0.0.1:3128'], sessionRequests: 5 }).proxy).toEqual({ urls: ['http://127.0.0.1:3128'], sessionRequests: 5 });
  });

  it('refuses credentials in a proxy URL without repeating them', () => {
    const error = refusal({ urls: ['http://alice:hunter2@gateway.example:8000'] });
    expect(error.field).toBe('proxy.urls[0]');
    expect(error.message).toContain('CRAWLER_PROXY_CREDENTIALS');
    expect(error.message).not.toContain('hunter2');
    expect(error.message).not.toContain('alice');
    expect(refusal({ urls: ['not a url with s3cr3t@'] }).message).not.toContain('s3cr3t');
  });

  it.each([
    [{ urls: [] }, 'proxy.urls'],
    [{ urls: 'http://gateway.example' }, 'proxy.urls'],
    [{ urls: ['socks5://gateway.example:1080'] }, 'proxy.urls[0]'],
    [{ urls: ['http://gateway.example/path'] }, 'proxy.urls[0]'],
    [{ urls: ['http://gateway.example', 7] }, 'proxy.urls[1]'],
    [{ urls: ['http://gateway.example'], sessionRequests: 0 }, 'proxy.sessionRequests'],
    [{ urls: Array.from({ length: 101 }, (_, i) => `http://p${i}.example`) }, 'proxy.urls'],
  ])('refuses %j naming %s', (proxy, field) => {
    expect(refusal(proxy).field).toBe(field);
  });

  it('names the flags that set it', () => {
    expect(flagOfConfigField('proxy.urls[3]')).toBe('--proxy');
    expect(flagOfConfigField('proxy.sessionRequests')).toBe('--proxy-session-requests');
  });

  it('reads --proxy and --proxy-session-requests', () => {
    expect(proxyOption(undefined, undefined)).toBeUndefined();
    expect(proxyOption(['http://a.example'], '7')).toEqual({ urls: ['http://a.example'], sessionRequests: 7 });
    expect(() => proxyOption(undefined, '7')).toThrow(CliError);
    expect(() => proxyOption(['http://a.example'], '0')).toThrow(/--proxy-session-requests/);
  });
});

describe('CrawlConfig.costModel', () => {
  it('is absent by default and kept as given, price 0 when none', () => {
    expect(resolveCrawlConfig({}).costModel).toBeUndefined();
    expect(resolveCrawlConfig({ costModel: { kind: 'gateway-bytes', price: 8 } }).costModel).toEqual({ kind: 'gateway-bytes', price: 8 });
    expect(resolveCrawlConfig({ costModel: { kind: 'direct-bytes' } as never }).costModel).toEqual({ kind: 'direct-bytes', price: 0 });
  });

  it('refuses an unknown model or a negative price, naming the flag', () => {
    for (const costModel of [{ kind: 'per-page', price: 1 }, { kind: 'gateway-bytes', price: -2 }]) {
      const error = (() => {
        try {
          resolveCrawlConfig({ costModel: costModel as never });
        } catch (caught) {
          return caught as CrawlConfigError;
        }
        throw new Error('expected a refusal');
      })();
      expect(error).toBeInstanceOf(CrawlConfigError);
      expect(flagOfConfigField(error.field)).toBe('--cost-model');
    }
  });

  it('reads --cost-model KIND[:PRICE]', () => {
    expect(costModelOption(undefined)).toBeUndefined();
    expect(costModelOption('gateway-bytes:8')).toEqual({ kind: 'gateway-bytes', price: 8 });
    expect(costModelOption('successful-requests:0.0015')).toEqual({ kind: 'successful-requests', price: 0.0015 });
    expect(costModelOption('direct-bytes')).toEqual({ kind: 'direct-bytes', price: 0 });
    for (const bad of ['bytes', 'gateway-bytes:', 'gateway-bytes:-1', 'gateway-bytes:1e3', 'gateway-bytes:1:2']) expect(() => costModelOption(bad), bad).toThrow(CliError);
  });
});
