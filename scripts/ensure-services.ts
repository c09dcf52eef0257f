// One-shot setup for services the project does not start itself (docker-compose.yml's
// crawler-setup): waits for the Temporal, Postgres and S3 named by TEMPORAL_ADDRESS,
// DATABASE_URL and S3_ENDPOINT, registers the crawler's search attributes and creates the
// bucket. Exits 0 when all are ready, 1 with the reason otherwise.
// Run: node bin/run-ts.js scripts/ensure-services.ts
import { ensureStack, StackError } from '../src/stack/index.js';

const missing = ['TEMPORAL_ADDRESS', 'DATABASE_URL', 'S3_ENDPOINT'].filter((name) => !process.env[name]);
if (missing.length > 0) {
  console.error(`ensure-services: set ${missing.join(', ')}; this script only prepares external services and starts nothing.`);
  process.exit(2);
}

const timeoutMs = Number(process.env.SERVICES_WAIT_MS ?? 300_000);
try {
  const endpoints = await ensureStack({
    env: process.env,
    temporalNamespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
    connectTimeoutMs: timeoutMs,
    log: (line) => console.log(`ensure-services: ${line}`),
  });
  console.log(`ensure-services: ready: Temporal ${endpoints.temporal.address}, S3 bucket ${endpoints.s3.bucket}`);
} catch (error) {
  console.error(`ensure-services: ${error instanceof StackError ? error.message : String(error)}`);
  process.exit(1);
}
