import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { minioArgs } from '../../../src/stack/minio-server.js';
import { crawlerPgHba, crawlerPostgresConf, generatePostgresPassword, postgresClientUrl, postgresUrl } from '../../../src/stack/postgres-cluster.js';
import { temporalDevServerArgs } from '../../../src/stack/temporal-dev-server.js';

/** The values following each occurrence of a flag. */
function flagValues(args: string[], flag: string): string[] {
  return args.flatMap((arg, i) => (arg === flag ? [args[i + 1] ?? ''] : []));
}

describe('temporalDevServerArgs', () => {
  const base = { binary: '/x/temporal', dir: '/data/temporal', port: 7300, uiPort: 8300 };

  it('persists to a file in the data folder, binds loopback, and registers the crawler attributes', () => {
    const args = temporalDevServerArgs(base);
    expect(args.slice(0, 2)).toEqual(['server', 'start-dev']);
    expect(flagValues(args, '--db-filename')).toEqual(['/data/temporal/temporal.db']);
    expect(flagValues(args, '--ip')).toEqual(['127.0.0.1']);
    expect(flagValues(args, '--port')).toEqual(['7300']);
    expect(flagValues(args, '--ui-port')).toEqual(['8300']);
    expect(flagValues(args, '--log-level')).toEqual(['warn']);
    expect(flagValues(args, '--search-attribute')).toEqual(['CrawlId=Keyword', 'CrawlHost=Keyword', 'CrawlState=Keyword', 'CrawlIds=KeywordList']);
    expect(args).not.toContain('--headless');
    expect(args).not.toContain('--namespace');
  });

  it('JSON-encodes dynamic config values and adds a non-default namespace', () => {
    const args = temporalDevServerArgs({
      ...base,
      namespace: 'crawls',
      searchAttributes: { Depth: 'Int' },
      dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': 200, 'frontend.namespaceRPS': 'x' },
    });
    expect(flagValues(args, '--namespace')).toEqual(['crawls']);
    expect(flagValues(args, '--search-attribute')).toEqual(['Depth=Int']);
    expect(flagValues(args, '--dynamic-config-value')).toEqual(
      expect.arrayContaining(['limit.historyCount.suggestContinueAsNew=200', 'frontend.namespaceRPS="x"']),
    );
  });

  it('refuses a search attribute name that is not an identifier', () => {
    expect(() => temporalDevServerArgs({ ...base, searchAttributes: { 'bad name': 'Keyword' } })).toThrow(/identifier/);
  });
});

describe('Postgres configuration', () => {
  it('listens on loopback only, on the given port, with the socket inside the data folder', () => {
    const conf = crawlerPostgresConf(54321, '/data/postgres/run');
    expect(conf).toContain("listen_addresses = '127.0.0.1'");
    expect(conf).toMatch(/^port = 54321$/m);
    expect(conf).toContain("unix_socket_directories = '/data/postgres/run'");
    expect(conf).toMatch(/^max_connections = 200$/m);
    expect(conf).toMatch(/^shared_buffers = 128MB$/m);
  });

  it('turns Unix sockets off rather than failing when the socket path would be too long', () => {
    const conf = crawlerPostgresConf(54321, `/data/${'x'.repeat(120)}/run`);
    expect(conf).toContain("unix_socket_directories = ''");
  });

  it('quotes a socket folder with a quote in it', () => {
    expect(crawlerPostgresConf(1, "/d/o'k")).toContain("unix_socket_directories = '/d/o''k'");
  });

  it('asks for a scram-sha-256 password on the local socket and loopback addresses, and trusts nobody', () => {
    const rules = crawlerPgHba.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
    expect(rules).toEqual(['local all all scram-sha-256', 'host all all 127.0.0.1/32 scram-sha-256', 'host all all ::1/128 scram-sha-256']);
  });

  it('builds the crawler URL, with the password when given', () => {
    expect(postgresUrl(5555)).toBe('postgres://crawler@127.0.0.1:5555/crawler');
    expect(postgresUrl(5555, 'postgres')).toBe('postgres://crawler@127.0.0.1:5555/postgres');
    expect(postgresUrl(5555, 'crawler', 'a/b@c')).toBe('postgres://crawler:a%2Fb%40c@127.0.0.1:5555/crawler');
    expect(new URL(postgresUrl(5555, 'crawler', 'a/b@c')).password).toBe('a%2Fb%40c');
  });

  it("connects the crawler over the cluster's Unix socket when it is there, over loopback TCP when not", async () => {
    const socketDir = mkdtempSync(join(tmpdir(), 'pg-socket-'));
    try {
      expect(postgresClientUrl(5555, socketDir, 'crawler', 'pw')).toBe('postgres://crawler:pw@127.0.0.1:5555/crawler');
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(join(socketDir, '.s.PGSQL.5555'), resolve));
      try {
        const url = postgresClientUrl(5555, socketDir, 'crawler', 'pw');
        expect(url).toBe(`postgres://crawler:pw@127.0.0.1:5555/crawler?host=${encodeURIComponent(socketDir)}`);
        // What pg connects to: the socket folder, with the same port, user, password and database.
        const client = new pg.Client({ connectionString: url }) as pg.Client & { connectionParameters: Record<string, unknown> };
        expect(client.connectionParameters).toMatchObject({ host: socketDir, port: 5555, user: 'crawler', database: 'crawler' });
        // Another port's socket is not this cluster's.
        expect(postgresClientUrl(5556, socketDir)).toBe('postgres://crawler@127.0.0.1:5556/crawler');
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    } finally {
      rmSync(socketDir, { recursive: true, force: true });
    }
  });

  it('keeps loopback TCP when the socket path is too long for a Unix socket', () => {
    expect(postgresClientUrl(5555, `/${'d'.repeat(120)}`)).toBe('postgres://crawler@127.0.0.1:5555/crawler');
  });

  it('generates a long URL-safe password, a new one each time', () => {
    const password = generatePostgresPassword();
    expect(password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(generatePostgresPassword()).not.toBe(password);
  });
});

describe('minioArgs', () => {
  it('serves objects from the data folder, API and console on loopback', () => {
    const args = minioArgs({ binary: 'minio', dir: '/data/minio', port: 9100, consolePort: 9101, accessKey: 'the-user', secretKey: 'the-password' });
    expect(args.slice(0, 2)).toEqual(['server', '/data/minio/data']);
    expect(flagValues(args, '--address')).toEqual(['127.0.0.1:9100']);
    expect(flagValues(args, '--console-address')).toEqual(['127.0.0.1:9101']);
    // Credentials travel by environment, never on the command line where ps shows them.
    expect(args.join(' ')).not.toMatch(/the-user|the-password/);
  });
});
