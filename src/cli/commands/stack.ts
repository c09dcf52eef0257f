import { ensureStack, stackStatus, stopStack, type StackEndpoints } from '../../stack/index.js';
import { redactCredentials } from '../../domain/url/index.js';
import { dataDirOption, defaultDataDir, parseCommandArgs } from '../args.js';
import { CliError } from '../cli-error.js';

export const stackUsage = `usage: crawler stack up|down|status [--data-dir DIR] [--json] [--show-secrets]

up      starts Temporal (with its UI), Postgres and MinIO under the data folder, each on a free
        port, and leaves them running; services named by TEMPORAL_ADDRESS, DATABASE_URL or
        S3_ENDPOINT are used instead of starting local ones
down    stops what 'up' started for this data folder; the data stays
status  shows each service, its endpoint, pid and log file

--json prints the endpoints as JSON, the Postgres password and the object store's keys as ***
like the text form; --show-secrets prints them as they are (for a script that connects with them).`;

/** The endpoints with the Postgres password and the object store's keys as `***`, as the text form shows them. */
export function redactedEndpoints(endpoints: StackEndpoints): StackEndpoints {
  return { ...endpoints, postgres: { ...endpoints.postgres, url: redactCredentials(endpoints.postgres.url) }, s3: { ...endpoints.s3, accessKey: '***', secretKey: '***' } };
}

export async function stackCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...dataDirOption, json: { type: 'boolean' }, 'show-secrets': { type: 'boolean' } }, stackUsage);
  const dataDir = defaultDataDir(values['data-dir']);
  const action = positionals[0];
  switch (action) {
    case 'up': {
      const endpoints = await ensureStack({ dataDir, log: (line) => process.stderr.write(`${line}\n`) });
      if (values.json) {
        process.stdout.write(`${JSON.stringify(values['show-secrets'] ? endpoints : redactedEndpoints(endpoints))}\n`);
      } else {
        process.stdout.write(
          [
            `Temporal   ${endpoints.temporal.address} (namespace ${endpoints.temporal.namespace})${endpoints.temporal.uiUrl ? `, UI ${endpoints.temporal.uiUrl}` : ''}`,
            `Postgres   ${redactCredentials(endpoints.postgres.url)}`,
            `MinIO      ${endpoints.s3.useSSL ? 'https' : 'http'}://${endpoints.s3.endPoint}:${endpoints.s3.port} bucket ${endpoints.s3.bucket}${endpoints.s3.consoleUrl ? `, console ${endpoints.s3.consoleUrl}` : ''}`,
            '',
          ].join('\n'),
        );
      }
      return 0;
    }
    case 'down':
      await stopStack({ dataDir });
      process.stdout.write(`stopped the local stack of ${dataDir} (data kept)\n`);
      return 0;
    case 'status': {
      const status = await stackStatus({ dataDir });
      if (values.json) {
        process.stdout.write(`${JSON.stringify(status)}\n`);
      } else {
        for (const [name, service] of Object.entries(status)) {
          const details = [service.endpoint, service.pid ? `pid ${service.pid}` : undefined, service.uiUrl ? `UI ${service.uiUrl}` : undefined, service.logFile ? `log ${service.logFile}` : undefined]
            .filter(Boolean)
            .join(', ');
          process.stdout.write(`${name.padEnd(9)} ${service.state.padEnd(8)} ${details}\n`);
        }
      }
      return 0;
    }
    default:
      throw new CliError(`unknown stack action '${action ?? ''}'\n\n${stackUsage}`, 2);
  }
}
