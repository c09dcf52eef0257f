// WARC 1.1 records byte for byte. Expected digests and UUIDs were computed independently
// (Python's hashlib, base64.b32encode and uuid.uuid5), not with the code under test.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  base32,
  readWarcRecords,
  requestHead,
  responseHead,
  serializeWarcRecord,
  sha256Digest,
  sha256DigestFromHex,
  splitHttpBlock,
  warcField,
  warcRecordId,
  WarcExportError,
} from '../../../src/export/index.js';

const HELLO_RESPONSE = 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello';

describe('serializeWarcRecord', () => {
  it('writes the exact bytes of a small response record', () => {
    const block = Buffer.from(HELLO_RESPONSE, 'latin1');
    const bytes = serializeWarcRecord({
      type: 'response',
      recordId: '<urn:uuid:8a139407-6692-55db-93a2-6f3880ef17d4>',
      date: new Date('2025-01-02T03:04:05.678Z'),
      targetUri: 'http://example.com/a?b=1',
      fields: [['WARC-Concurrent-To', '<urn:uuid:00000000-0000-5000-8000-000000000000>']],
      contentType: 'application/http;msgtype=response',
      block,
      payloadOffset: block.length - 5,
    });
    expect(bytes.toString('latin1')).toBe(
      'WARC/1.1\r\n' +
        'WARC-Type: response\r\n' +
        'WARC-Record-ID: <urn:uuid:8a139407-6692-55db-93a2-6f3880ef17d4>\r\n' +
        'WARC-Date: 2025-01-02T03:04:05.678Z\r\n' +
        'WARC-Target-URI: http://example.com/a?b=1\r\n' +
        'WARC-Concurrent-To: <urn:uuid:00000000-0000-5000-8000-000000000000>\r\n' +
        'Content-Type: application/http;msgtype=response\r\n' +
        'WARC-Block-Digest: sha256:BD7KHBMWE63ZRPF3MVMZRMLXYR5PLXQPVON4GJYYCYI53QTNGACQ====\r\n' +
        'WARC-Payload-Digest: sha256:FTZE3OS7WCRQ4JXIHMVMLOPCTYNRMHS4D6TUEXTTAQZWFE4LTASA====\r\n' +
        `Content-Length: ${HELLO_RESPONSE.length}\r\n` +
        '\r\n' +
        HELLO_RESPONSE +
        '\r\n\r\n',
    );
  });

  it('counts Content-Length in bytes, not characters', () => {
    const block = Buffer.from('é€😀', 'utf8');
    const bytes = serializeWarcRecord({ type: 'resource', recordId: '<urn:uuid:x>', date: new Date(0), block });
    const [record] = readWarcRecords(bytes);
    expect(warcField(record!, 'Content-Length')).toBe(String(block.length));
    expect(block.length).toBe(9);
    expect(record!.block.equals(block)).toBe(true);
  });

  it('takes a given payload digest as is (a revisit names a payload it does not hold)', () => {
    const digest = sha256DigestFromHex(createHash('sha256').update('hello').digest('hex'));
    const bytes = serializeWarcRecord({ type: 'revisit', recordId: '<urn:uuid:r>', date: new Date(0), block: Buffer.from('HTTP/1.1 304 Not Modified\r\n\r\n'), payloadDigest: digest });
    expect(warcField(readWarcRecords(bytes)[0]!, 'WARC-Payload-Digest')).toBe('sha256:FTZE3OS7WCRQ4JXIHMVMLOPCTYNRMHS4D6TUEXTTAQZWFE4LTASA====');
  });

  it('writes no payload digest when there is no payload offset, and an empty payload when the offset is the end', () => {
    const block = Buffer.from('GET / HTTP/1.1\r\nHost: a\r\n\r\n');
    const none = readWarcRecords(serializeWarcRecord({ type: 'request', recordId: '<urn:uuid:q>', date: new Date(0), block }))[0]!;
    expect(warcField(none, 'WARC-Payload-Digest')).toBeUndefined();
    const empty = readWarcRecords(serializeWarcRecord({ type: 'request', recordId: '<urn:uuid:q>', date: new Date(0), block, payloadOffset: block.length }))[0]!;
    expect(warcField(empty, 'WARC-Payload-Digest')).toBe('sha256:4OYMIQUY7QOBJGX36TEJS35ZEQT24QPEMSNZGTFESWMRW6CSXBKQ====');
  });

  it('refuses a field value with a line break rather than let stored data forge fields', () => {
    const attempt = () =>
      serializeWarcRecord({ type: 'response', recordId: '<urn:uuid:x>', date: new Date(0), targetUri: 'http://a/\r\nWARC-Type: forged', block: Buffer.alloc(0) });
    expect(attempt).toThrow(WarcExportError);
    expect(attempt).toThrow(/CR, LF or NUL/);
    expect(() => serializeWarcRecord({ type: 'response', recordId: '<urn:uuid:x>', date: new Date(0), fields: [['Bad Name', 'v']], block: Buffer.alloc(0) })).toThrow(/not a token/);
    expect(() => serializeWarcRecord({ type: 'response', recordId: '<urn:uuid:x>', date: new Date(0), block: Buffer.alloc(3), payloadOffset: 4 })).toThrow(/outside/);
  });
});

describe('digests and ids', () => {
  it('base32 matches the RFC 4648 test vectors', () => {
    const vectors: Array<[string, string]> = [
      ['', ''],
      ['f', 'MY======'],
      ['fo', 'MZXQ===='],
      ['foo', 'MZXW6==='],
      ['foob', 'MZXW6YQ='],
      ['fooba', 'MZXW6YTB'],
      ['foobar', 'MZXW6YTBOI======'],
    ];
    for (const [input, output] of vectors) expect(base32(Buffer.from(input))).toBe(output);
  });

  it('labels SHA-256 digests the way warcio computes them', () => {
    expect(sha256Digest(Buffer.from('hello'))).toBe('sha256:FTZE3OS7WCRQ4JXIHMVMLOPCTYNRMHS4D6TUEXTTAQZWFE4LTASA====');
    expect(() => sha256DigestFromHex('xyz')).toThrow(WarcExportError);
  });

  it('record ids are RFC 9562 version 5 UUIDs of a name: the same fetch, the same id', () => {
    expect(warcRecordId('capture/abc/1')).toBe('<urn:uuid:8a139407-6692-55db-93a2-6f3880ef17d4>');
    expect(warcRecordId('capture/abc/2')).not.toBe(warcRecordId('capture/abc/1'));
  });
});

describe('HTTP messages in records', () => {
  it('describes the decoded body: Content-Encoding and Transfer-Encoding dropped, Content-Length recomputed', () => {
    const head = responseHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip', 'content-length': '31', 'transfer-encoding': 'chunked', etag: '"v1"' }, 120).toString('latin1');
    expect(head).toBe('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nETag: "v1"\r\nContent-Length: 120\r\n\r\n');
  });

  it('keeps a 304 head as received, and leaves out a header whose value would break the head', () => {
    expect(responseHead(304, { etag: '"v1"', 'x-bad': 'a\r\nSet-Cookie: x' }, undefined).toString('latin1')).toBe('HTTP/1.1 304 Not Modified\r\nETag: "v1"\r\n\r\n');
  });

  it('writes the request line and Host from the URL, then the headers sent', () => {
    const head = requestHead('http://127.0.0.1:8080/a/b?c=d', { 'user-agent': 'Bot/1', 'if-none-match': '"v1"' });
    expect(head.toString('latin1')).toBe('GET /a/b?c=d HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: Bot/1\r\nIf-None-Match: "v1"\r\n\r\n');
    expect(requestHead('https://example.com/', {}).toString('latin1')).toBe('GET / HTTP/1.1\r\nHost: example.com\r\n\r\n');
  });

  it('splits a block into head and payload', () => {
    const { startLine, headers, payload } = splitHttpBlock(Buffer.from(HELLO_RESPONSE, 'latin1'));
    expect(startLine).toBe('HTTP/1.1 200 OK');
    expect(headers).toEqual([
      ['Content-Type', 'text/plain'],
      ['Content-Length', '5'],
    ]);
    expect(payload.toString()).toBe('hello');
  });
});

describe('readWarcRecords', () => {
  it('rejects a block that is not followed by CRLF CRLF', () => {
    const bytes = serializeWarcRecord({ type: 'resource', recordId: '<urn:uuid:x>', date: new Date(0), block: Buffer.from('abc') });
    expect(() => readWarcRecords(bytes.subarray(0, bytes.length - 1))).toThrow(/CRLF CRLF/);
    expect(() => readWarcRecords(Buffer.from('HTTP/1.1 200 OK\r\n\r\n'))).toThrow(/not WARC/);
  });
});
