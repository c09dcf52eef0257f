import { ensureStack, stackStatus, StackError, type StackEndpoints } from '../stack/index.js';
import { CliError } from './cli-error.js';

const HOW_TO_START: Record<string, string> = {
  temporal: 'start the local stack with `crawler stack up`, or set TEMPORAL_ADDRESS to a running Temporal server',
  postgres: 'start the local stack with `crawler stack up`, or set DATABASE_URL to a running Postgres',
  s3: 'start the local stack with `crawler stack up`, or set S3_ENDPOINT, S3_ACCESS_KEY and S3_SECRET_KEY',
};
const NAMES: Record<string, string> = { temporal: 'Temporal', postgres: 'Postgres', s3: 'MinIO (S3)' };

/**
 * The services a command needs. `crawl` starts what is missing (and leaves it running);
 * every other command only connects, and names the missing service and how to start it.
 */
export async function connectServices(options: {
  dataDir: string;
  start: boolean;
  need?: ('temporal' | 'postgres' | 's3')[];
  log?: (line: string) => void;
}): Promise<StackEndpoints> {
  if (!options.start) {
    const status = await stackStatus({ dataDir: options.dataDir });
    for (const service of options.need ?? ['temporal', 'postgres', 's3']) {
      if (status[service].state === 'stopped') {
        throw new CliError(`${NAMES[service]} is not running for data folder ${options.dataDir}: ${HOW_TO_START[service]}.`);
      }
    }
  }
  try {
    return await ensureStack({ dataDir: options.dataDir, ...(options.log ? { log: options.log } : {}) });
  } catch (error) {
    if (error instanceof StackError) throw new CliError(error.message);
    throw error;
  }
}

export function temporalUiLink(endpoints: StackEndpoints, workflowId: string): string | undefined {
  const base = endpoints.temporal.uiUrl ?? process.env['TEMPORAL_UI_URL'];
  if (!base) return undefined;
  return `${base}/namespaces/${encodeURIComponent(endpoints.temporal.namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}
