import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidFetchRequestError, ProxyCredentials, readProxyCredentials } from '../../../src/http/index.js';

describe('ProxyCredentials', () => {
  it('reads a login for every proxy, and logins of single proxies by origin, later lines winning', () => {
    const credentials = ProxyCredentials.parse(
      ['# gateway logins', 'alice:pa:ss', '', 'http://bob:p%40ss@gw.example:8000/', 'http://carol:first@gw2.example', 'http://carol:second@gw2.example'].join('\n'),
      'test',
    );
    expect(credentials.loginFor('http://gw.example:8000')).toEqual({ username: 'bob', password: 'p@ss' });
    expect(credentials.loginFor('http://gw2.example')).toEqual({ username: 'carol', password: 'second' });
    // The password may hold colons: only the first one splits.
    expect(credentials.loginFor('http://other.example:3128')).toEqual({ username: 'alice', password: 'pa:ss' });
    expect(ProxyCredentials.none.loginFor('http://gw.example:8000')).toBeUndefined();
    expect(ProxyCredentials.none.isEmpty).toBe(true);
    expect(credentials.isEmpty).toBe(false);
  });

  it.each([['no-colon-here'], [':nouser'], ['ftp://u:p@gw.example'], ['http://gw.example:8000'], ['http://[bad']])('refuses %j naming the line, never showing it', (line) => {
    try {
      ProxyCredentials.parse(`# ok\n${line}\n`, 'creds.txt');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidFetchRequestError);
      expect((error as Error).message).toContain('creds.txt line 2');
      if (line.includes(':') && !line.startsWith('http://gw.example')) expect((error as Error).message).not.toContain(line);
    }
  });

  it('reads the environment, then the file, whose lines win', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'proxy-creds-'));
    const file = path.join(dir, 'creds');
    writeFileSync(file, 'http://filed:from-file@gw.example:8000\n');
    const env = { CRAWLER_PROXY_CREDENTIALS: 'envuser:from-env', CRAWLER_PROXY_CREDENTIALS_FILE: file };
    const credentials = await readProxyCredentials({ env });
    expect(credentials.loginFor('http://gw.example:8000')).toEqual({ username: 'filed', password: 'from-file' });
    expect(credentials.loginFor('http://elsewhere.example')).toEqual({ username: 'envuser', password: 'from-env' });
    // An explicit file (the --proxy-credentials-file flag) replaces the variable's.
    const other = path.join(dir, 'other');
    writeFileSync(other, 'flag:from-flag\n');
    expect((await readProxyCredentials({ env, file: other })).loginFor('http://elsewhere.example')).toEqual({ username: 'flag', password: 'from-flag' });
    expect((await readProxyCredentials({ env: {} })).isEmpty).toBe(true);
    await expect(readProxyCredentials({ env: {}, file: path.join(dir, 'missing') })).rejects.toThrow(/cannot read the proxy credentials file .*ENOENT/);
  });
});
