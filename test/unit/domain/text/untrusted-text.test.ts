/* eslint-disable no-control-regex -- these tests look for control characters */
import { describe, expect, it } from 'vitest';
import { UNTRUSTED_TEXT_MAX_CHARS, escapeJsonLineBreakers, jsonLine, neutralizeText } from '../../../../src/domain/text/index.js';

/** Every place a reader may end a line: what Python's str.splitlines() and most log shippers split on. */
const LINE_ENDS = /\r\n|[\n\v\f\r\x1c-\x1e\x85\u2028\u2029]/;

describe('neutralizeText', () => {
  it('leaves printable text alone, any script', () => {
    for (const text of ['text/html; charset=utf-8', 'host/127.0.0.1', 'Grüße, 世界 😀', '', 'a\\x1b stays a backslash']) expect(neutralizeText(text)).toBe(text);
  });

  it('escapes every C0 control and DEL', () => {
    for (let code = 0; code < 0x20; code += 1) {
      const out = neutralizeText(`a${String.fromCharCode(code)}b`);
      expect(out).not.toMatch(/[\x00-\x1f]/);
      expect(out).toMatch(/^a\\(x[0-9a-f]{2}|[tnr])b$/);
    }
    expect(neutralizeText('a\x7fb')).toBe('a\\x7fb');
    expect(neutralizeText('\x1b[2K\rok')).toBe('\\x1b[2K\\rok');
    expect(neutralizeText('one\ntwo\tthree')).toBe('one\\ntwo\\tthree');
  });

  it('escapes every C1 control: U+0085 (a line end to many readers) and U+009B (CSI) among them', () => {
    for (let code = 0x80; code < 0xa0; code += 1) {
      const out = neutralizeText(`a${String.fromCharCode(code)}b`);
      expect(out).toBe(`a\\x${code.toString(16)}b`);
    }
    expect(neutralizeText('text/html\u0085evil\u009b31m')).toBe('text/html\\x85evil\\x9b31m');
  });

  it('escapes the line and paragraph separators and the bidirectional controls', () => {
    expect(neutralizeText('a\u2028b\u2029c')).toBe('a\\u2028b\\u2029c');
    for (const ch of ['\u061c', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069']) {
      expect(neutralizeText(`x${ch}y`)).toBe(`x\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}y`);
    }
  });

  it('never leaves anything a line-based reader splits on', () => {
    let all = '';
    for (let code = 0; code < 0x3000; code += 1) if (code < 0xd800 || code > 0xdfff) all += String.fromCharCode(code);
    expect(neutralizeText(all, { maxChars: all.length })).not.toMatch(LINE_ENDS);
  });

  it(`keeps ${UNTRUSTED_TEXT_MAX_CHARS} characters by default and says how many it cut`, () => {
    const line = 'x'.repeat(20 * 1024 * 1024);
    const out = neutralizeText(line);
    expect(out).toBe(`${'x'.repeat(200)}… (${20 * 1024 * 1024 - 200} more characters)`);
    expect(neutralizeText('abcdef', { maxChars: 5 })).toBe('abcde… (1 more character)');
    expect(neutralizeText('abcde', { maxChars: 5 })).toBe('abcde');
  });

  it('counts characters, not UTF-16 units, and never splits a surrogate pair', () => {
    expect(neutralizeText('😀😀😀', { maxChars: 2 })).toBe('😀😀… (1 more character)');
    expect(neutralizeText('a😀b😀', { maxChars: 1 })).toBe('a… (3 more characters)');
    // A lone surrogate counts as one character.
    expect(neutralizeText('ab\ud800c', { maxChars: 2 })).toBe('ab… (2 more characters)');
  });

  it('counts characters the caller dropped before among those cut', () => {
    expect(neutralizeText('abc', { droppedChars: 10 })).toBe('abc… (10 more characters)');
    expect(neutralizeText('abcdef', { maxChars: 3, droppedChars: 10 })).toBe('abc… (13 more characters)');
    expect(neutralizeText('abc', { droppedChars: 0 })).toBe('abc');
  });

  it('caps before escaping: escapes widen what is kept, not what is read', () => {
    const out = neutralizeText('\x1b'.repeat(1000), { maxChars: 10 });
    expect(out).toBe(`${'\\x1b'.repeat(10)}… (990 more characters)`);
  });
});

describe('jsonLine', () => {
  it('is JSON.stringify with DEL, C1, U+2028/U+2029 and bidirectional controls escaped: the same value, one line for every reader', () => {
    const value = { message: 'content type text/html\u0085a\u009b31m\u2028b\u2029c\u202ed\x7f is not crawled', n: 1 };
    const line = jsonLine(value);
    expect(line).not.toMatch(LINE_ENDS);
    expect(line).not.toMatch(/[\x7f-\x9f\u202e]/);
    expect(JSON.parse(line)).toEqual(value);
    expect(line).toContain('\\u0085');
  });

  it('applies a replacer as JSON.stringify does', () => {
    expect(jsonLine({ big: 10n }, (_key, value) => (typeof value === 'bigint' ? value.toString() : value))).toBe('{"big":"10"}');
  });

  it('escapeJsonLineBreakers leaves a JSON text without them unchanged', () => {
    const text = JSON.stringify({ a: 'plain ü 世界', b: [1, 2] });
    expect(escapeJsonLineBreakers(text)).toBe(text);
  });
});
