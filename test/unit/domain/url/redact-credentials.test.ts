import { describe, expect, it } from 'vitest';
import { redactCredentials } from '../../../../src/domain/url/index.js';

describe('redactCredentials', () => {
  it.each([
    ['postgres://crawler:secret@127.0.0.1:5432/crawler', 'postgres://crawler:***@127.0.0.1:5432/crawler'],
    ['postgres://crawler:p@ss@db/x', 'postgres://crawler:***@db/x'],
    ['postgres://crawler:pa:ss@db/x', 'postgres://crawler:***@db/x'],
    ['postgres://crawler:pa/ss@db/x', 'postgres://crawler:***@db/x'],
    ['postgres://crawler:p%40ss%2F@db/x', 'postgres://crawler:***@db/x'],
    ['postgres://crawler:100%@db/x', 'postgres://crawler:***@db/x'],
    ['postgres://crawler:p?ss#w@db/x', 'postgres://crawler:***@db/x'],
    ['postgres://crawler:@db/x', 'postgres://crawler:***@db/x'],
    ['postgresql://u:a@b:c/d@[::1]:5432/x', 'postgresql://u:***@[::1]:5432/x'],
    ['http://minio:minio-secret@127.0.0.1:9000/', 'http://minio:***@127.0.0.1:9000/'],
    ['crawler:secret@db:5432/x', 'crawler:***@db:5432/x'],
  ])('userinfo password: %s → %s', (input, expected) => {
    expect(redactCredentials(input)).toBe(expected);
  });

  it.each([
    ['postgres://crawler@db/x?password=secret', 'postgres://crawler@db/x?password=***'],
    ['postgres://db/x?sslmode=require&sslpassword=k3y&application_name=a', 'postgres://db/x?sslmode=require&sslpassword=***&application_name=a'],
    ['postgres://db/x?PASSWORD=p@ss&user=crawler', 'postgres://db/x?PASSWORD=***&user=crawler'],
    ['postgres://u:pw@db/x?password=a:b/c%25', 'postgres://u:***@db/x?password=***'],
    ['http://127.0.0.1:9000/b?X-Amz-Signature=abc&X-Amz-Security-Token=t#f', 'http://127.0.0.1:9000/b?X-Amz-Signature=***&X-Amz-Security-Token=***#f'],
    ["host=db user=crawler password='a b' dbname=x", 'host=db user=crawler password=*** dbname=x'],
    ['host=db password=secret', 'host=db password=***'],
  ])('query and keyword passwords: %s → %s', (input, expected) => {
    expect(redactCredentials(input)).toBe(expected);
  });

  it.each([
    'postgres://crawler@127.0.0.1:5432/crawler',
    'postgres://127.0.0.1:5432/crawler',
    'http://127.0.0.1:9000',
    'postgres://db/x?sslmode=require&application_name=crawler',
    '127.0.0.1:7233',
  ])('leaves %s alone: no secret in it', (input) => {
    expect(redactCredentials(input)).toBe(input);
  });

  it('never shows any character of the password, whatever it holds', () => {
    const alphabet = 'aZ9@:/%?#&=;._~-';
    for (let i = 0; i < 500; i++) {
      let password = 'Q';
      for (let n = 0; n < 1 + (i % 12); n++) password += alphabet[(i * 7 + n * 13) % alphabet.length];
      password += 'Q';
      const redacted = redactCredentials(`postgres://crawler:${password}@db.internal:5432/crawler`);
      expect(redacted).not.toContain('Q');
      expect(redacted).toMatch(/^postgres:\/\/crawler:\*\*\*@/);
    }
  });
});
