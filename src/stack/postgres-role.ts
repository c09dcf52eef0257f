/**
 * The crawler's own Postgres role on a shared server (docker-compose.yml: one Postgres for
 * Temporal and the crawler): made by the one-shot setup over an administrator's connection, so
 * that workers hold a password that opens the crawler's database only, not the server.
 */
import pg from 'pg';
import { redactCredentials } from '../domain/url/index.js';
import { quoteIdentifier } from './postgres-cluster.js';
import { StackError } from './stack-error.js';

export interface PostgresRoleOptions {
  /** An administrator's connection (a superuser, or a role that may create roles and databases). */
  adminUrl: string;
  /** The crawler's own URL: its user, password and database are what this makes. */
  databaseUrl: string;
}

export interface PostgresRoleOutcome {
  role: string;
  database: string;
  createdRole: boolean;
  createdDatabase: boolean;
}

/** What the crawler's role may not do: it logs in and owns its database, nothing more. */
const ROLE_ATTRIBUTES = 'LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS';

function quoteLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

function badConfig(message: string, hint: string): StackError {
  return new StackError(message, { code: 'STACK_BAD_CONFIG', service: 'postgres', hint });
}

/**
 * Makes the role DATABASE_URL names (a login without superuser, role or database rights) with
 * that URL's password, and the database it names, owned by it. Idempotent: an existing role gets
 * the password again and loses any right beyond that, an existing database gets the role as owner.
 */
export async function ensurePostgresRole(options: PostgresRoleOptions): Promise<PostgresRoleOutcome> {
  const crawler = new URL(options.databaseUrl);
  const admin = new URL(options.adminUrl);
  const role = decodeURIComponent(crawler.username);
  const password = decodeURIComponent(crawler.password);
  const database = decodeURIComponent(crawler.pathname.replace(/^\//, ''));
  const hint = 'Set DATABASE_URL to postgres://<crawler role>:<password>@<host>/<database>, a role other than the administrator of POSTGRES_ADMIN_URL.';
  if (role === '' || password === '' || database === '') throw badConfig(`DATABASE_URL ${redactCredentials(options.databaseUrl)} must name a user, a password and a database`, hint);
  if (role === decodeURIComponent(admin.username)) throw badConfig(`DATABASE_URL names the administrator ${role} of POSTGRES_ADMIN_URL: the crawler needs a role of its own`, hint);

  const client = new pg.Client({ connectionString: options.adminUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    // ALTER/CREATE ROLE take no bind parameters: the password goes in as a quoted literal, hashed by the server.
    await client.query("SET password_encryption = 'scram-sha-256'");
    const roleFound = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
    const createdRole = roleFound.rowCount === 0;
    await client.query(`${createdRole ? 'CREATE' : 'ALTER'} ROLE ${quoteIdentifier(role)} ${ROLE_ATTRIBUTES} PASSWORD ${quoteLiteral(password)}`);
    const databaseFound = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    const createdDatabase = databaseFound.rowCount === 0;
    await client.query(createdDatabase ? `CREATE DATABASE ${quoteIdentifier(database)} OWNER ${quoteIdentifier(role)}` : `ALTER DATABASE ${quoteIdentifier(database)} OWNER TO ${quoteIdentifier(role)}`);
    return { role, database, createdRole, createdDatabase };
  } finally {
    await client.end().catch(() => undefined);
  }
}
