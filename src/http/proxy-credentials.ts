import { readFile } from 'node:fs/promises';
import { InvalidFetchRequestError } from './errors.js';

/** A proxy's user name and password (Basic authentication, sent on its CONNECT only). */
export interface ProxyLogin {
  username: string;
  password: string;
}

/** Environment variable holding proxy credentials in the credentials-file format (usually one `user:password`). */
export const PROXY_CREDENTIALS_ENV = 'CRAWLER_PROXY_CREDENTIALS';
/** Environment variable naming a credentials file. */
export const PROXY_CREDENTIALS_FILE_ENV = 'CRAWLER_PROXY_CREDENTIALS_FILE';

/**
 * Proxy credentials as a worker process holds them. They come from its environment or a file,
 * never from a crawl's config: that is stored in Postgres, travels in Temporal payloads and is
 * shown by `crawler status`. Nothing here prints a password; errors name the source and line.
 */
export class ProxyCredentials {
  static readonly none = new ProxyCredentials(new Map(), undefined);

  private constructor(
    private readonly byOrigin: ReadonlyMap<string, ProxyLogin>,
    private readonly fallback: ProxyLogin | undefined,
  ) {}

  /**
   * Credentials read from lines of text: `user:password` (for every proxy without its own), or
   * `http(s)://user:password@host:port` (for that proxy; user and password percent-encoded as in
   * any URL). Blank lines and lines starting with # are skipped. Later lines win. `source` names
   * the text in errors (a file name, an environment variable).
   */
  static parse(text: string, source: string): ProxyCredentials {
    return ProxyCredentials.none.with(text, source);
  }

  /** These credentials with the lines of `text` added (see parse). */
  with(text: string, source: string): ProxyCredentials {
    const byOrigin = new Map(this.byOrigin);
    let fallback = this.fallback;
    text.split(/\r?\n/).forEach((raw, index) => {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) return;
      const where = `${source} line ${index + 1}`;
      if (/^[a-z][a-z0-9+.-]*:\/\//i.test(line)) {
        const { origin, login } = loginOfUrl(line, where);
        byOrigin.set(origin, login);
        return;
      }
      const colon = line.indexOf(':');
      if (colon <= 0) throw new InvalidFetchRequestError('HTTP_INVALID_OPTION', where, `${where}: expected user:password or http://user:password@host:port (the line is not shown)`);
      fallback = { username: line.slice(0, colon), password: line.slice(colon + 1) };
    });
    return new ProxyCredentials(byOrigin, fallback);
  }

  /** The login for a proxy's origin (`http://host:port`), else the one for every proxy, else none. */
  loginFor(proxyOrigin: string): ProxyLogin | undefined {
    return this.byOrigin.get(proxyOrigin) ?? this.fallback;
  }

  /** Whether any login is known: for messages, never the logins themselves. */
  get isEmpty(): boolean {
    return this.byOrigin.size === 0 && this.fallback === undefined;
  }
}

/**
 * The worker's proxy credentials: CRAWLER_PROXY_CREDENTIALS, then the file named by `file` or else
 * by CRAWLER_PROXY_CREDENTIALS_FILE (its lines win). Rejects with InvalidFetchRequestError naming
 * the variable or file and line, never its content.
 */
export async function readProxyCredentials(options: { env: NodeJS.ProcessEnv; file?: string }): Promise<ProxyCredentials> {
  let credentials = ProxyCredentials.none;
  const inline = options.env[PROXY_CREDENTIALS_ENV];
  if (inline !== undefined && inline.trim() !== '') credentials = credentials.with(inline, PROXY_CREDENTIALS_ENV);
  const file = options.file ?? options.env[PROXY_CREDENTIALS_FILE_ENV];
  if (file !== undefined && file !== '') {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new InvalidFetchRequestError('HTTP_INVALID_OPTION', file, `cannot read the proxy credentials file ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    credentials = credentials.with(text, file);
  }
  return credentials;
}

function loginOfUrl(line: string, where: string): { origin: string; login: ProxyLogin } {
  let url: URL;
  try {
    url = new URL(line);
  } catch {
    throw new InvalidFetchRequestError('HTTP_INVALID_OPTION', where, `${where}: not a URL (the line is not shown); write http://user:password@host:port`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidFetchRequestError('HTTP_INVALID_OPTION', where, `${where}: a proxy is http: or https:, not ${url.protocol}`);
  }
  if (url.username === '') throw new InvalidFetchRequestError('HTTP_INVALID_OPTION', where, `${where}: the URL has no user:password@`);
  return { origin: url.origin, login: { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) } };
}
