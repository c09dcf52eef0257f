// One-shot setup for services the project does not start itself (docker-compose.yml's
// crawler-setup): with POSTGRES_ADMIN_URL, makes the crawler's own Postgres role and database
// (those DATABASE_URL names; not a superuser) over that administrator's connection; then waits for
// the Temporal, Postgres and S3 named by TEMPORAL_ADDRESS, DATABASE_URL and S3_ENDPOINT, registers
// the crawler's search attributes and creates the bucket if it may. Exits 0 when all are ready, 1
// with the reason otherwise.
// Run: node bin/run-ts.js scripts/ensure-services.ts
import { setTimeout as sleep } from 'node:timers/promises';
import { redactCredentials } from '../src/domain/url/index.js';
import { ensurePostgresRole, ensureStack, StackError } from '../src/stack/index.js';

const missing = ['TEMPORAL_ADDRESS', 'DATABASE_URL', 'S3_ENDPOINT'].filter((name) => !process.env[name]);
if (missing.length > 0) {
  console.error(`ensure-services: set ${missing.join(', ')}; this script only prepares external services and starts nothing.`);
  process.exit(2);
}

const timeoutMs = Number(process.env.SERVICES_WAIT_MS ?? 300_000);

/** The role, once the administrator's Postgres answers (it may still be starting). */
async function ensureCrawlerRole(adminUrl: string, databaseUrl: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const outcome = await ensurePostgresRole({ adminUrl, databaseUrl });
      console.log(`ensure-services: Postgres role ${outcome.role} ${outcome.createdRole ? 'created' : 'checked'} (no superuser, role or database rights), database ${outcome.database} ${outcome.createdDatabase ? 'created' : 'checked'}`);
      return;
    } catch (error) {
      if (error instanceof StackError || Date.now() > deadline) throw error;
      await sleep(1_000);
    }
  }
}

try {
  const adminUrl = process.env.POSTGRES_ADMIN_URL;
  if (adminUrl !== undefined && adminUrl !== '') await ensureCrawlerRole(adminUrl, process.env.DATABASE_URL!);
  const endpoints = await ensureStack({
    env: process.env,
    temporalNamespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
    connectTimeoutMs: timeoutMs,
    log: (line) => console.log(`ensure-services: ${line}`),
  });
  console.log(`ensure-services: ready: Temporal ${endpoints.temporal.address}, S3 bucket ${endpoints.s3.bucket}`);
} catch (error) {
  console.error(`ensure-services: ${error instanceof StackError ? error.message : redactCredentials(String(error))}`);
  process.exit(1);
}
