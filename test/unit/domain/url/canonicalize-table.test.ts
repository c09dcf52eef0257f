// Hand-written cases: each input with its canonical URL or the rejection code it must get.
import { describe, expect, it } from 'vitest';
import { canonicalizeUrl, tryCanonicalizeUrl, UrlRejectedError, type UrlRejectionCode } from '../../../../src/domain/url/index.js';

type Case = [input: string, expected: string | { reject: UrlRejectionCode }];
const reject = (code: UrlRejectionCode): { reject: UrlRejectionCode } => ({ reject: code });
const E = 'https://example.com';

const CASES: Record<string, Case[]> = {
  'scheme, host and path case': [
    ['HTTP://EXAMPLE.COM/', 'http://example.com/'],
    ['HtTpS://Example.Com/Docs/Index.HTML', 'https://example.com/Docs/Index.HTML'],
    ['https://example.com', 'https://example.com/'],
    ['https://example.com?q', 'https://example.com/?q'],
    ['https://example.com#frag', 'https://example.com/'],
    ['  https://example.com/a \n', 'https://example.com/a'],
  ],
  ports: [
    ['http://example.com:80/', 'http://example.com/'],
    ['https://example.com:443/', 'https://example.com/'],
    ['http://example.com:443/', 'http://example.com:443/'],
    ['https://example.com:80/', 'https://example.com:80/'],
    ['http://example.com:8080/a', 'http://example.com:8080/a'],
    ['http://example.com:0080/', 'http://example.com/'],
    ['http://example.com:/a', 'http://example.com/a'],
    ['http://example.com:65535/', 'http://example.com:65535/'],
    ['http://example.com:65536/', reject('invalid-port')],
    ['http://example.com:0/', reject('invalid-port')],
    ['http://example.com:8a/', reject('invalid-port')],
    ['http://example.com:-1/', reject('invalid-port')],
    ['http://example.com:99999999999999999999/', reject('invalid-port')],
    ['http://example.com:80:80/', reject('invalid-port')],
    ['http://[::1]:abc/', reject('invalid-port')],
  ],
  'IDNA and domain names': [
    ['https://bücher.de/', 'https://xn--bcher-kva.de/'],
    ['https://BÜCHER.de/', 'https://xn--bcher-kva.de/'],
    ['https://例え.テスト/', 'https://xn--r8jz45g.xn--zckzah/'],
    ['https://ＥＸＡＭＰＬＥ.com/', 'https://example.com/'],
    ['https://xn--bcher-kva.de/', 'https://xn--bcher-kva.de/'],
    ['https://faß.de/', 'https://xn--fa-hia.de/'],
    ['https://ex%41mple.com/', 'https://example.com/'],
    ['https://example.com./', 'https://example.com./'],
    ['https://under_score.example.com/', 'https://under_score.example.com/'],
    ['https://xn--zz/', reject('invalid-host')],
    ['https://exa!mple.com/', reject('invalid-host')],
    ['https://a..b/', reject('invalid-host')],
    [`https://${'a'.repeat(64)}.com/`, reject('invalid-host')],
    ['https://exa mple.com/', reject('invalid-host')],
    ['https://exa<mple.com/', reject('invalid-host')],
    ['https://%zz.com/', reject('invalid-host')],
    ['https://ex%2Fample.com/', reject('invalid-host')],
  ],
  'IPv4 forms': [
    ['http://127.0.0.1/', 'http://127.0.0.1/'],
    ['http://2130706433/', 'http://127.0.0.1/'],
    ['http://0x7f000001/', 'http://127.0.0.1/'],
    ['http://0x7f.1/', 'http://127.0.0.1/'],
    ['http://0177.0.0.1/', 'http://127.0.0.1/'],
    ['http://127.1/', 'http://127.0.0.1/'],
    ['http://192.168.257/', 'http://192.168.1.1/'],
    ['http://256.0.0.1/', reject('invalid-host')],
    ['http://1.2.3.4.5/', reject('invalid-host')],
  ],
  'IPv6 literals': [
    ['http://[::1]/', 'http://[::1]/'],
    ['http://[0:0:0:0:0:0:0:1]:8080/', 'http://[::1]:8080/'],
    ['http://[2001:DB8::A]/', 'http://[2001:db8::a]/'],
    ['http://[2001:db8:0:0:1:0:0:1]/', 'http://[2001:db8::1:0:0:1]/'],
    ['http://[::ffff:192.0.2.1]/', 'http://[::ffff:c000:201]/'],
    ['http://[::1]:443/', 'http://[::1]:443/'],
    ['http://[::1/', reject('invalid-host')],
    ['http://[::1]x/', reject('invalid-host')],
    ['http://[:::1]/', reject('invalid-host')],
    ['http://[fe80::1%25eth0]/', reject('invalid-host')],
  ],
  'percent-encoding outside the query': [
    [`${E}/%7Euser`, `${E}/~user`],
    [`${E}/%7euser`, `${E}/~user`],
    [`${E}/%41%42%43`, `${E}/ABC`],
    [`${E}/%2D%2E%5F%7E`, `${E}/-._~`],
    [`${E}/a%2fb`, `${E}/a%2Fb`],
    [`${E}/a%2Fb`, `${E}/a%2Fb`],
    [`${E}/a%20b`, `${E}/a%20b`],
    [`${E}/%e4%bd%a0`, `${E}/%E4%BD%A0`],
    [`${E}/你好`, `${E}/%E4%BD%A0%E5%A5%BD`],
    [`${E}/emoji/😀`, `${E}/emoji/%F0%9F%98%80`],
    [`${E}/a b`, `${E}/a%20b`],
    [`${E}/"quoted"<x>`, `${E}/%22quoted%22%3Cx%3E`],
    [`${E}/{a}\`b\``, `${E}/%7Ba%7D%60b%60`],
    [`${E}/100%`, `${E}/100%25`],
    [`${E}/%zz`, `${E}/%25zz`],
    [`${E}/%%41`, `${E}/%25A`],
  ],
  'query stays opaque': [
    [`${E}/a?%7e=%7E`, `${E}/a?%7e=%7E`],
    [`${E}/a?b=2&a=1`, `${E}/a?b=2&a=1`],
    [`${E}/a?q=a&q=b`, `${E}/a?q=a&q=b`],
    [`${E}/a?q=a b`, `${E}/a?q=a%20b`],
    [`${E}/a?q=ü`, `${E}/a?q=%C3%BC`],
    [`${E}/a?q=%zz`, `${E}/a?q=%zz`],
    [`${E}/a?q='x'`, `${E}/a?q=%27x%27`],
    [`${E}/a?x=1?y=2`, `${E}/a?x=1?y=2`],
    [`${E}/a?&&`, `${E}/a?&&`],
    [`${E}/a??`, `${E}/a??`],
    [`${E}/a?q=/../x`, `${E}/a?q=/../x`],
    [`${E}/a?utm_source=x`, `${E}/a?utm_source=x`],
  ],
  'dot segments and empty paths': [
    [`${E}/a/b/../c`, `${E}/a/c`],
    [`${E}/a/./b`, `${E}/a/b`],
    [`${E}/../a`, `${E}/a`],
    [`${E}/a/b/..`, `${E}/a/`],
    [`${E}/a/b/.`, `${E}/a/b/`],
    [`${E}/a/%2e%2E/b`, `${E}/b`],
    [`${E}/a//b`, `${E}/a//b`],
    [`${E}/a/.../b`, `${E}/a/.../b`],
    [`${E}/a/..b/c`, `${E}/a/..b/c`],
    [`${E}/.hidden`, `${E}/.hidden`],
    [`${E}/..`, `${E}/`],
    ['https://example.com?', 'https://example.com/?'],
  ],
  backslashes: [
    ['https:\\\\example.com\\a\\b', 'https://example.com/a/b'],
    [`${E}/a\\b?c\\d`, `${E}/a/b?c\\d`],
  ],
  'malformed input': [
    ['', reject('empty')],
    ['   ', reject('empty')],
    ['example.com/a', reject('malformed')],
    ['//example.com/a', reject('malformed')],
    ['/relative/path', reject('malformed')],
    ['https:/example.com', reject('malformed')],
    ['https:///example.com', reject('malformed')],
    ['https:example.com', reject('malformed')],
    ['https://', reject('invalid-host')],
    ['https://:80/', reject('invalid-host')],
    ['https://?q', reject('invalid-host')],
    ['ftp://example.com/', reject('unsupported-scheme')],
    ['mailto:a@example.com', reject('unsupported-scheme')],
    ['javascript:alert(1)', reject('unsupported-scheme')],
    ['data:text/html,hi', reject('unsupported-scheme')],
    ['tel:+15551234', reject('unsupported-scheme')],
    ['file:///etc/passwd', reject('unsupported-scheme')],
    [`${E}/a\u0000b`, reject('invalid-characters')],
    [`${E}/a\tb`, reject('invalid-characters')],
    [`${E}/a\nb`, reject('invalid-characters')],
    [`${E}/\u0085`, reject('invalid-characters')],
    [`${E}/\u007f`, reject('invalid-characters')],
    [`${E}/\ud800`, reject('invalid-characters')],
    [`${E}/${'a'.repeat(3000)}`, reject('too-long')],
    [`${E}/${'a'.repeat(20_000)}`, reject('too-long')],
  ],
  userinfo: [
    ['https://user@example.com/', reject('userinfo')],
    ['https://user:@example.com/', reject('userinfo')],
    ['https://@example.com/', reject('userinfo')],
    ['https://:@example.com/', reject('userinfo')],
    ['HTTPS://U:P@EXAMPLE.COM/', reject('userinfo')],
    ['https://example.com@evil.example/', reject('userinfo')],
    ['ftp://user:pw@example.com/', reject('userinfo')],
    ['https:user:pw@example.com/', reject('userinfo')],
    ['ht\ttps://user:pw@example.com/', reject('userinfo')],
    [`https://user:pw@example.com/${'a'.repeat(20_000)}`, reject('userinfo')],
    [`${E}/@user`, `${E}/@user`],
    [`${E}/?email=a@b.example`, `${E}/?email=a@b.example`],
    [`${E}/#user@x`, `${E}/`],
  ],
};

describe('canonicalizeUrl: hand-written table', () => {
  it('has at least 60 cases', () => {
    expect(Object.values(CASES).flat().length).toBeGreaterThanOrEqual(60);
  });

  for (const [group, cases] of Object.entries(CASES)) {
    describe(group, () => {
      for (const [input, expected] of cases) {
        const label = JSON.stringify(input.length > 80 ? `${input.slice(0, 60)}…(${input.length})` : input);
        if (typeof expected === 'string') {
          it(`${label} → ${expected.length > 80 ? `${expected.slice(0, 60)}…` : expected}`, () => {
            const canonical = canonicalizeUrl(input);
            expect(canonical.url).toBe(expected);
            // The canonical form is a fixed point, and it is what a WHATWG client sends.
            expect(canonicalizeUrl(canonical.url)).toEqual(canonical);
            expect(new URL(canonical.url).href).toBe(canonical.url);
          });
        } else {
          it(`${label} → rejected (${expected.reject})`, () => {
            const result = tryCanonicalizeUrl(input);
            expect(result.ok).toBe(false);
            if (result.ok) return;
            expect(result.error).toBeInstanceOf(UrlRejectedError);
            expect(result.error.code).toBe(expected.reject);
            expect(() => canonicalizeUrl(input)).toThrow(UrlRejectedError);
          });
        }
      }
    });
  }
});

describe('CanonicalUrl parts', () => {
  it('exposes host, effective port, origin and the request target', () => {
    expect(canonicalizeUrl('HTTPS://Shop.Example:8443/a/../Item?x=1#r')).toEqual({
      url: 'https://shop.example:8443/Item?x=1',
      scheme: 'https',
      host: 'shop.example',
      port: 8443,
      origin: 'https://shop.example:8443',
      path: '/Item',
      query: 'x=1',
      pathAndQuery: '/Item?x=1',
      version: 1,
    });
  });

  it('uses the default port as effective port and leaves it out of the origin', () => {
    const url = canonicalizeUrl('http://example.com/a?');
    expect([url.port, url.origin, url.query, url.pathAndQuery]).toEqual([80, 'http://example.com', '', '/a?']);
  });

  it('honours maxUrlLength', () => {
    expect(canonicalizeUrl(`${E}/abc`, { maxUrlLength: 23 }).url).toBe(`${E}/abc`);
    expect(tryCanonicalizeUrl(`${E}/abcd`, { maxUrlLength: 23 })).toMatchObject({ ok: false, error: { code: 'too-long' } });
  });

  it('refuses a nonsensical maxUrlLength as a programming error', () => {
    expect(() => canonicalizeUrl(E, { maxUrlLength: 0 })).toThrow(RangeError);
  });
});
