// The crawler's own Postgres role, as docker-compose.yml's setup makes it over the administrator's
// connection: it logs in with DATABASE_URL's password, owns its database, can run every migration
// there, and has no superuser, role or database rights; a second setup run keeps it so.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { ensurePostgresRole } from '../../src/stack/postgres-role.js';
import { migrate } from '../../src/storage/postgres/migrate.js';
import { createPool } from '../../src/storage/postgres/pool.js';

const adminUrl = inject('stack').postgres.url;
const suffix = randomBytes(4).toString('hex');
const role = `crawler_role_${suffix}`;
const database = `t_role_${suffix}`;

function urlFor(user: string, password: string, name = database): string {
  const url = new URL(adminUrl);
  url.username = user;
  url.password = password;
  url.pathname = `/${name}`;
  return url.toString();
}

async function asAdmin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

async function connects(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

describe("the crawler's Postgres role", () => {
  afterAll(async () => {
    await asAdmin(async (client) => {
      await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await client.query(`DROP ROLE IF EXISTS "${role}"`);
    });
  });

  it('is made with its database, runs every migration there, and has no rights beyond it', async () => {
    const databaseUrl = urlFor(role, 'first-password-0123');
    expect(await ensurePostgresRole({ adminUrl, databaseUrl })).toEqual({ role, database, createdRole: true, createdDatabase: true });
    const pool = createPool({ connectionString: databaseUrl, maxConnections: 2 });
    try {
      await migrate(pool);
      const { rows } = await pool.query<{ rolsuper: boolean; rolcreaterole: boolean; rolcreatedb: boolean; owner: string }>(
        'SELECT rolsuper, rolcreaterole, rolcreatedb, pg_get_userbyid(d.datdba) AS owner FROM pg_roles, pg_database d WHERE rolname = current_user AND d.datname = current_database()',
      );
      expect(rows[0]).toEqual({ rolsuper: false, rolcreaterole: false, rolcreatedb: false, owner: role });
      const tables = await pool.query<{ n: string }>("SELECT count(*) AS n FROM pg_tables WHERE schemaname = 'public' AND tableowner = current_user");
      expect(Number(tables.rows[0]!.n)).toBeGreaterThan(10);
      // Not the server's: another database stays closed to it.
      await expect(pool.query('CREATE DATABASE should_not_exist')).rejects.toMatchObject({ code: '42501' });
    } finally {
      await pool.end();
    }
  });

  it('takes the new password and loses rights given since when the setup runs again', async () => {
    await asAdmin((client) => client.query(`ALTER ROLE "${role}" SUPERUSER CREATEROLE`));
    const databaseUrl = urlFor(role, 'second-password-4567');
    expect(await ensurePostgresRole({ adminUrl, databaseUrl })).toMatchObject({ createdRole: false, createdDatabase: false });
    expect(await connects(databaseUrl)).toBe(true);
    expect(await connects(urlFor(role, 'first-password-0123'))).toBe(false);
    const { rows } = await asAdmin((client) => client.query<{ rolsuper: boolean; rolcreaterole: boolean }>('SELECT rolsuper, rolcreaterole FROM pg_roles WHERE rolname = $1', [role]));
    expect(rows[0]).toEqual({ rolsuper: false, rolcreaterole: false });
  });

  it("refuses a DATABASE_URL that names the administrator, or lacks a password: it would demote the one or open the other", async () => {
    const adminUser = decodeURIComponent(new URL(adminUrl).username);
    await expect(ensurePostgresRole({ adminUrl, databaseUrl: urlFor(adminUser, 'x-password-0000') })).rejects.toMatchObject({ code: 'STACK_BAD_CONFIG', message: expect.stringContaining('administrator') });
    await expect(ensurePostgresRole({ adminUrl, databaseUrl: urlFor(role, '') })).rejects.toMatchObject({ code: 'STACK_BAD_CONFIG' });
  });
});
