import { Client, Connection } from '@temporalio/client';
import type { StackEndpoints } from '../stack/index.js';
import { createPool, type Pool } from '../storage/postgres/pool.js';
import { migrate } from '../storage/postgres/migrate.js';

export async function connectClient(endpoints: StackEndpoints): Promise<Client> {
  const connection = await Connection.connect({ address: endpoints.temporal.address });
  return new Client({ connection, namespace: endpoints.temporal.namespace });
}

/** A small pool for a command's queries, with the schema brought up to date first. */
export async function connectDatabase(endpoints: StackEndpoints): Promise<Pool> {
  const pool = createPool({ connectionString: endpoints.postgres.url, maxConnections: 4, applicationName: 'crawler-cli' });
  await migrate(pool);
  return pool;
}
