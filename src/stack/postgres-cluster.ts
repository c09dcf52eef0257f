import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, chownSync, constants as fsConstants, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { PRIVATE_FILE_MODE } from './private-files.js';
import { readPidFile } from './process-supervisor.js';
import { StackError } from './stack-error.js';
import { makeSearchableBy } from './searchable-path.js';
import { runAsUserPrefix, type SystemUser } from './system-user.js';

const execFileAsync = promisify(execFile);

/** The role initdb creates; it logs in with a password (scram-sha-256), on loopback only. */
export const postgresSuperuser = 'crawler';
export const postgresDatabase = 'crawler';

export interface PostgresClusterOptions {
  /** Folder holding initdb, pg_ctl and postgres of one install. */
  binDir: string;
  /** `<dataDir>/postgres`: cluster, socket folder and log live under it. */
  dir: string;
  /** TCP port on 127.0.0.1. */
  port: number;
  /**
   * Who runs initdb and postgres. They refuse to run as root, so when we are root this is the
   * `postgres` system user and the folder is handed to it. Default: undefined (the current user).
   */
  runAs?: SystemUser;
  /** pg_ctl -w timeout. Default: 120 s. */
  startTimeoutSeconds?: number;
}

export function postgresPaths(dir: string): { clusterDir: string; socketDir: string; logFile: string; pidFile: string } {
  const clusterDir = join(dir, 'cluster');
  return { clusterDir, socketDir: join(dir, 'run'), logFile: join(dir, 'postgres.log'), pidFile: join(clusterDir, 'postmaster.pid') };
}

/** The superuser's URL on loopback; with `password` it is what clients connect with (the cluster asks for it). */
export function postgresUrl(port: number, database = postgresDatabase, password?: string): string {
  const userinfo = password === undefined ? postgresSuperuser : `${postgresSuperuser}:${encodeURIComponent(password)}`;
  return `postgres://${userinfo}@127.0.0.1:${port}/${database}`;
}

/**
 * The URL the crawler's own connections use: over the cluster's Unix socket when this process may
 * use it, else loopback TCP. Each statement is a socket write and read; over loopback TCP the
 * kernel runs the TCP stack for both ends in the writer's time (bench/README.md, "Figures behind
 * the defaults"), over a Unix socket it copies bytes. The TCP address stays in the URL for people
 * and tools; libpq and pg both take `host=<folder>` as the socket folder.
 */
export function postgresClientUrl(port: number, socketDir: string, database = postgresDatabase, password?: string): string {
  const tcp = postgresUrl(port, database, password);
  return socketUsable(join(socketDir, `.s.PGSQL.${port}`)) ? `${tcp}?host=${encodeURIComponent(socketDir)}` : tcp;
}

function socketUsable(socketPath: string): boolean {
  if (Buffer.byteLength(socketPath) > maxSocketPathBytes) return false;
  try {
    accessSync(socketPath, fsConstants.R_OK | fsConstants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** A superuser password for a new data folder: 32 URL-safe characters, 192 bits. */
export function generatePostgresPassword(): string {
  return randomBytes(24).toString('base64url');
}

// A Unix socket path is limited to 107 bytes (sun_path); beyond that Postgres would refuse to start.
const maxSocketPathBytes = 100;

/**
 * Settings regenerated on every start (the port may change). Sized for a crawler on a small
 * machine: many short connections from workers, modest shared memory. fsync stays on: the
 * fetch records are the crawl's memory.
 */
export function crawlerPostgresConf(port: number, socketDir: string): string {
  const socketPath = join(socketDir, `.s.PGSQL.${port}`);
  const socketDirs = Buffer.byteLength(socketPath) <= maxSocketPathBytes ? socketDir : '';
  const quote = (value: string) => `'${value.replace(/'/g, "''")}'`;
  return [
    '# Written by src/stack/postgres-cluster.ts on every start; edits are overwritten.',
    "listen_addresses = '127.0.0.1'",
    `port = ${port}`,
    `unix_socket_directories = ${quote(socketDirs)}`,
    'max_connections = 200',
    'shared_buffers = 128MB',
    'fsync = on',
    'synchronous_commit = on',
    'logging_collector = off',
    "log_min_messages = 'warning'",
    "timezone = 'UTC'",
    '',
  ].join('\n');
}

/**
 * pg_hba.conf: a password (scram-sha-256) for everyone, over the local socket and loopback only.
 * Not trust: any local user could otherwise connect as the superuser.
 */
export const crawlerPgHba = [
  '# Written by src/stack/postgres-cluster.ts: scram-sha-256 passwords, loopback only.',
  'local all all scram-sha-256',
  'host all all 127.0.0.1/32 scram-sha-256',
  'host all all ::1/128 scram-sha-256',
  '',
].join('\n');

async function run(binary: string, args: string[], runAs: SystemUser | undefined, logFile: string, cwd: string): Promise<void> {
  const prefix = runAs === undefined ? [] : runAsUserPrefix(runAs);
  const [command = binary, ...rest] = [...prefix, binary, ...args];
  try {
    // cwd: the postgres user may not be allowed into ours.
    await execFileAsync(command, rest, { cwd, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    appendFileSync(logFile, `\n$ ${[command, ...rest].join(' ')}\n${stdout}${stderr}`);
    throw error;
  }
}

function prepareDir(path: string, runAs: SystemUser | undefined, mode: number): void {
  mkdirSync(path, { recursive: true, mode });
  if (runAs !== undefined) chownSync(path, runAs.uid, runAs.gid);
}

/**
 * Creates the cluster once (UTF8, C collation for byte-order URL sorting, `crawler` superuser
 * whose password is `password`, from generatePostgresPassword).
 */
export async function initPostgresCluster(options: PostgresClusterOptions & { password: string }): Promise<void> {
  const paths = postgresPaths(options.dir);
  prepareDir(options.dir, options.runAs, 0o700);
  if (options.runAs !== undefined) makeSearchableBy(options.dir, options.runAs);
  prepareDir(paths.socketDir, options.runAs, 0o700);
  if (!existsSync(paths.logFile)) writeFileSync(paths.logFile, '', { mode: PRIVATE_FILE_MODE });
  if (options.runAs !== undefined) chownSync(paths.logFile, options.runAs.uid, options.runAs.gid);
  if (existsSync(join(paths.clusterDir, 'PG_VERSION'))) return;
  // initdb reads the password from a file (never argv, which other users can see), as the user it runs as.
  const passwordFile = join(options.dir, 'initdb-password');
  writeFileSync(passwordFile, `${options.password}\n`, { mode: PRIVATE_FILE_MODE });
  if (options.runAs !== undefined) chownSync(passwordFile, options.runAs.uid, options.runAs.gid);
  try {
    await run(
      join(options.binDir, 'initdb'),
      ['-D', paths.clusterDir, '-U', postgresSuperuser, '-E', 'UTF8', '--no-locale', '--auth=scram-sha-256', `--pwfile=${passwordFile}`, '--no-instructions'],
      options.runAs,
      paths.logFile,
      options.dir,
    );
  } catch (cause) {
    throw new StackError(`initdb failed for ${paths.clusterDir}`, {
      code: 'STACK_START_FAILED',
      service: 'postgres',
      logFile: paths.logFile,
      hint:
        options.runAs === undefined
          ? 'Read the log; delete the half-made cluster folder and retry.'
          : `Read the log; every folder above ${options.dir} must be searchable by the '${options.runAs.name}' user (chmod o+x), then delete the half-made cluster folder and retry.`,
      cause,
    });
  } finally {
    rmSync(passwordFile, { force: true });
  }
  writeFileSync(join(paths.clusterDir, 'pg_hba.conf'), crawlerPgHba, { mode: PRIVATE_FILE_MODE });
  appendFileSync(join(paths.clusterDir, 'postgresql.conf'), "\n# Crawler stack settings (port, sockets, sizes)\ninclude_if_exists = 'crawler-stack.conf'\n");
}

/** Starts the cluster with pg_ctl -w (returns once it accepts connections) and returns the postmaster pid. */
export async function startPostgresCluster(options: PostgresClusterOptions): Promise<{ pid: number; logFile: string }> {
  const paths = postgresPaths(options.dir);
  const confFile = join(paths.clusterDir, 'crawler-stack.conf');
  writeFileSync(confFile, crawlerPostgresConf(options.port, paths.socketDir), { mode: PRIVATE_FILE_MODE });
  if (options.runAs !== undefined) chownSync(confFile, options.runAs.uid, options.runAs.gid);
  try {
    await run(
      join(options.binDir, 'pg_ctl'),
      ['start', '-D', paths.clusterDir, '-l', paths.logFile, '-w', '-t', String(options.startTimeoutSeconds ?? 120)],
      options.runAs,
      paths.logFile,
      options.dir,
    );
  } catch (cause) {
    throw new StackError(`Postgres did not start on 127.0.0.1:${options.port}`, {
      code: 'STACK_START_FAILED',
      service: 'postgres',
      logFile: paths.logFile,
      hint: `Read the log; start it by hand with: pg_ctl start -D ${paths.clusterDir} -l ${paths.logFile}`,
      cause,
    });
  }
  const pid = readPidFile(paths.pidFile);
  if (pid === undefined) {
    throw new StackError('Postgres started but wrote no postmaster.pid', {
      code: 'STACK_START_FAILED',
      service: 'postgres',
      logFile: paths.logFile,
      hint: 'Read the log, then retry.',
    });
  }
  return { pid, logFile: paths.logFile };
}

/** The port a cluster was last configured for, from crawler-stack.conf. */
export function configuredPostgresPort(dir: string): number | undefined {
  try {
    const match = /^port = (\d+)$/m.exec(readFileSync(join(postgresPaths(dir).clusterDir, 'crawler-stack.conf'), 'utf8'));
    return match === null ? undefined : Number(match[1]);
  } catch {
    return undefined;
  }
}

/**
 * Brings a cluster made before passwords (pg_hba trust) to scram-sha-256: sets the superuser's
 * password over `adminUrl` (trust still lets it in), then writes our pg_hba.conf and reloads.
 * Does nothing when pg_hba.conf is already ours. True when it changed something.
 */
export async function requirePostgresPassword(options: { dir: string; adminUrl: string; password: string; runAs?: SystemUser }): Promise<boolean> {
  const hbaFile = join(postgresPaths(options.dir).clusterDir, 'pg_hba.conf');
  if (readFileSync(hbaFile, 'utf8') === crawlerPgHba) return false;
  const client = new pg.Client({ connectionString: options.adminUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    // ALTER ROLE takes no bind parameters; the literal is quoted, and password_encryption makes it a SCRAM verifier.
    await client.query("SET password_encryption = 'scram-sha-256'");
    await client.query(`ALTER ROLE ${quoteIdentifier(postgresSuperuser)} PASSWORD '${options.password.replace(/'/g, "''")}'`);
    writeFileSync(hbaFile, crawlerPgHba, { mode: PRIVATE_FILE_MODE });
    if (options.runAs !== undefined) chownSync(hbaFile, options.runAs.uid, options.runAs.gid);
    await client.query('SELECT pg_reload_conf()');
  } finally {
    await client.end().catch(() => undefined);
  }
  return true;
}

/** True when a `SELECT 1` over url succeeds. */
export async function postgresAnswers(url: string, connectTimeoutMs = 3_000): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs, query_timeout: connectTimeoutMs });
  // A server that goes away mid-probe emits 'error' on the client: the probe's rejection says it.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Creates the database when missing; two racing callers are both fine. */
export async function ensurePostgresDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount !== 0) return;
    try {
      await client.query(`CREATE DATABASE ${quoteIdentifier(database)}`);
    } catch (error) {
      // 42P04 duplicate_database: someone else created it in between.
      if ((error as { code?: string }).code !== '42P04') throw error;
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}

export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
