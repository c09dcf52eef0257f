import { StackError } from './stack-error.js';

/** Services chosen by environment variables; a kind that is present is used, not started. */
export interface ExternalServices {
  temporal?: { address: string };
  postgres?: { url: string };
  s3?: { endPoint: string; port: number; useSSL: boolean; accessKey: string; secretKey: string };
}

export const defaultBucket = 'crawler-bodies';
export const defaultRegion = 'us-east-1';

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

/** S3_BUCKET and S3_REGION apply to a managed MinIO as well as an external S3. */
export function bucketSettings(env: NodeJS.ProcessEnv): { bucket: string; region: string } {
  return { bucket: nonEmpty(env.S3_BUCKET) ?? defaultBucket, region: nonEmpty(env.S3_REGION) ?? defaultRegion };
}

/**
 * Reads TEMPORAL_ADDRESS (host:port), DATABASE_URL (postgres://...) and S3_ENDPOINT
 * (http(s)://host[:port] or host:port, which means http) with S3_ACCESS_KEY and S3_SECRET_KEY.
 */
export function externalServicesFromEnv(env: NodeJS.ProcessEnv): ExternalServices {
  const services: ExternalServices = {};
  const temporalAddress = nonEmpty(env.TEMPORAL_ADDRESS);
  if (temporalAddress !== undefined) {
    if (!/^[^\s/:]+:\d+$/.test(temporalAddress) && !/^\[[0-9a-fA-F:]+\]:\d+$/.test(temporalAddress)) {
      throw new StackError(`TEMPORAL_ADDRESS '${temporalAddress}' is not host:port`, {
        code: 'STACK_BAD_CONFIG',
        service: 'temporal',
        hint: 'Set TEMPORAL_ADDRESS like 127.0.0.1:7233, or unset it to let the project start a dev server.',
      });
    }
    services.temporal = { address: temporalAddress };
  }
  const databaseUrl = nonEmpty(env.DATABASE_URL);
  if (databaseUrl !== undefined) {
    if (!/^postgres(ql)?:\/\//.test(databaseUrl)) {
      throw new StackError('DATABASE_URL is not a postgres:// URL', {
        code: 'STACK_BAD_CONFIG',
        service: 'postgres',
        hint: 'Set DATABASE_URL like postgres://user:password@host:5432/crawler, or unset it to let the project start Postgres.',
      });
    }
    services.postgres = { url: databaseUrl };
  }
  const s3Endpoint = nonEmpty(env.S3_ENDPOINT);
  if (s3Endpoint !== undefined) services.s3 = parseS3Endpoint(s3Endpoint, env);
  return services;
}

function parseS3Endpoint(endpoint: string, env: NodeJS.ProcessEnv): NonNullable<ExternalServices['s3']> {
  const badEndpoint = () =>
    new StackError(`S3_ENDPOINT '${endpoint}' is not http(s)://host[:port] or host:port`, {
      code: 'STACK_BAD_CONFIG',
      service: 's3',
      hint: 'Set S3_ENDPOINT like http://127.0.0.1:9000, or unset it to let the project start MinIO.',
    });
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(endpoint) ? endpoint : `http://${endpoint}`);
  } catch {
    throw badEndpoint();
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || (url.pathname !== '/' && url.pathname !== '')) throw badEndpoint();
  const accessKey = nonEmpty(env.S3_ACCESS_KEY);
  const secretKey = nonEmpty(env.S3_SECRET_KEY);
  if (accessKey === undefined || secretKey === undefined) {
    throw new StackError('S3_ENDPOINT is set but S3_ACCESS_KEY or S3_SECRET_KEY is missing', {
      code: 'STACK_BAD_CONFIG',
      service: 's3',
      hint: 'Set both S3_ACCESS_KEY and S3_SECRET_KEY, or unset S3_ENDPOINT to let the project start MinIO.',
    });
  }
  const useSSL = url.protocol === 'https:';
  return {
    endPoint: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? (useSSL ? 443 : 80) : Number(url.port),
    useSSL,
    accessKey,
    secretKey,
  };
}
