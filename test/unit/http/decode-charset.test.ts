import { describe, expect, it } from 'vitest';
import { charsetParameterOf, decodeCharset } from '../../../src/http/index.js';

const ascii = (text: string): number[] => Array.from(text, (char) => char.charCodeAt(0));
const bytes = (...parts: Array<string | number[]>): Uint8Array => Uint8Array.from(parts.flatMap((part) => (typeof part === 'string' ? ascii(part) : part)));

const KOREAN_EUC_KR = [0xc7, 0xd1, 0xb1, 0xb9, 0xbe, 0xee]; // 한국어
const JAPANESE_SHIFT_JIS = [0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea]; // 日本語
const EURO_E_ACUTE_1252 = [0x80, 0xe9]; // €é

describe('decodeCharset', () => {
  it('defaults to UTF-8', () => {
    const result = decodeCharset(new TextEncoder().encode('<p>héllo ☃</p>'), undefined);
    expect(result).toEqual({ text: '<p>héllo ☃</p>', charset: 'utf-8', source: 'default' });
  });

  it('takes a BOM over everything and strips it', () => {
    const utf8 = decodeCharset(bytes([0xef, 0xbb, 0xbf], 'hi'), 'text/html; charset=euc-kr');
    expect(utf8).toEqual({ text: 'hi', charset: 'utf-8', source: 'bom' });
    const le = decodeCharset(bytes([0xff, 0xfe, 0x68, 0x00, 0x69, 0x00]), undefined);
    expect(le).toEqual({ text: 'hi', charset: 'utf-16le', source: 'bom' });
    const be = decodeCharset(bytes([0xfe, 0xff, 0x00, 0x68, 0x00, 0x69]), '<meta charset=latin1>');
    expect(be).toEqual({ text: 'hi', charset: 'utf-16be', source: 'bom' });
  });

  it('takes the Content-Type charset over <meta>', () => {
    const result = decodeCharset(bytes('<meta charset="shift_jis">', KOREAN_EUC_KR), 'text/html; charset=EUC-KR');
    expect(result.charset).toBe('euc-kr');
    expect(result.source).toBe('header');
    expect(result.text).toBe('<meta charset="shift_jis">한국어');
  });

  it('reads quoted and odd-cased header parameters', () => {
    expect(decodeCharset(bytes(JAPANESE_SHIFT_JIS), 'text/html;Charset="Shift_JIS"')).toMatchObject({ text: '日本語', charset: 'shift_jis', source: 'header' });
    expect(charsetParameterOf('text/html; charset=utf-8; foo=bar')).toBe('utf-8');
    expect(charsetParameterOf('text/html; charset=""')).toBeUndefined();
    expect(charsetParameterOf('text/html')).toBeUndefined();
  });

  it('decodes iso-8859-1, latin1 and ascii as windows-1252, as browsers do', () => {
    for (const label of ['iso-8859-1', 'ISO-8859-1', 'latin1', 'us-ascii']) {
      const result = decodeCharset(bytes(EURO_E_ACUTE_1252), `text/html; charset=${label}`);
      expect(result).toMatchObject({ text: '€é', charset: 'windows-1252', source: 'header' });
    }
  });

  it('decodes windows-1252 bytes 0x80-0x9F by the WHATWG table (not as C1 controls)', () => {
    const all = Uint8Array.from({ length: 32 }, (_, index) => 0x80 + index);
    const text = decodeCharset(all, 'text/html; charset=windows-1252').text;
    expect(text).toBe('€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ');
    const latin1 = Uint8Array.from({ length: 96 }, (_, index) => 0xa0 + index);
    expect(decodeCharset(latin1, 'text/html; charset=latin1').text).toBe(String.fromCharCode(...latin1));
  });

  it('finds <meta charset> in the first 1024 bytes', () => {
    const html = bytes('<!doctype html><html><head><meta charset="euc-kr"><title>', KOREAN_EUC_KR, '</title>');
    expect(decodeCharset(html, 'text/html')).toMatchObject({ text: '<!doctype html><html><head><meta charset="euc-kr"><title>한국어</title>', charset: 'euc-kr', source: 'meta' });
  });

  it('finds <meta http-equiv=Content-Type content="...; charset=...">', () => {
    const html = bytes(`<HEAD><META HTTP-EQUIV='content-type' CONTENT='text/html; charset=Shift_JIS'></HEAD>`, JAPANESE_SHIFT_JIS);
    const result = decodeCharset(html, undefined);
    expect(result).toMatchObject({ charset: 'shift_jis', source: 'meta' });
    expect(result.text.endsWith('日本語')).toBe(true);
    expect(decodeCharset(bytes('<meta content="text/html; charset=windows-1252" http-equiv="Content-Type">', EURO_E_ACUTE_1252), undefined).text.endsWith('€é')).toBe(true);
  });

  it('ignores <meta> inside comments, after 1024 bytes, or without a charset', () => {
    expect(decodeCharset(bytes('<!-- <meta charset="euc-kr"> -->hi'), undefined).source).toBe('default');
    expect(decodeCharset(bytes(' '.repeat(1024), '<meta charset="euc-kr">'), undefined).source).toBe('default');
    expect(decodeCharset(bytes('<meta name="viewport" content="width=device-width"><meta charset=euc-kr>'), undefined)).toMatchObject({ charset: 'euc-kr', source: 'meta' });
    expect(decodeCharset(bytes('<metadata charset="euc-kr">'), undefined).source).toBe('default');
  });

  it('reads a <meta> that declares UTF-16 as UTF-8 (it was readable as ASCII)', () => {
    expect(decodeCharset(bytes('<meta charset="utf-16">ok'), undefined)).toMatchObject({ text: '<meta charset="utf-16">ok', charset: 'utf-8', source: 'meta' });
  });

  it('skips unknown labels with a note and falls through', () => {
    const fromMeta = decodeCharset(bytes('<meta charset="euc-kr">', KOREAN_EUC_KR), 'text/html; charset=klingon');
    expect(fromMeta).toMatchObject({ charset: 'euc-kr', source: 'meta' });
    expect(fromMeta.note).toContain('klingon');
    const fallback = decodeCharset(bytes('<meta charset="no-such-charset">hi'), undefined);
    expect(fallback).toMatchObject({ charset: 'utf-8', source: 'default' });
    expect(fallback.note).toContain('no-such-charset');
  });

  it('never throws on malformed bytes: they become U+FFFD', () => {
    expect(decodeCharset(bytes([0x61, 0xff, 0x62]), undefined).text).toBe('a\ufffdb');
    expect(decodeCharset(bytes([0xc7]), 'text/html; charset=euc-kr').text).toBe('\ufffd');
  });
});
