import { describe, expect, it } from 'vitest';
import { bucketSettings, externalServicesFromEnv } from '../../../src/stack/external-services.js';
import { StackError } from '../../../src/stack/stack-error.js';

function errorOf(fn: () => unknown): StackError {
  try {
    fn();
  } catch (error) {
    if (error instanceof StackError) return error;
    throw error;
  }
  throw new Error('expected a StackError');
}

describe('externalServicesFromEnv', () => {
  it('selects nothing when no variable is set or a variable is blank', () => {
    expect(externalServicesFromEnv({})).toEqual({});
    expect(externalServicesFromEnv({ TEMPORAL_ADDRESS: ' ', DATABASE_URL: '', S3_ENDPOINT: '' })).toEqual({});
  });

  it('reads each kind on its own', () => {
    expect(externalServicesFromEnv({ TEMPORAL_ADDRESS: 'temporal:7233' })).toEqual({ temporal: { address: 'temporal:7233' } });
    expect(externalServicesFromEnv({ DATABASE_URL: 'postgresql://u:p@db:5432/crawler' })).toEqual({
      postgres: { url: 'postgresql://u:p@db:5432/crawler' },
    });
  });

  it('parses S3 endpoints with and without a scheme', () => {
    const keys = { S3_ACCESS_KEY: 'ak', S3_SECRET_KEY: 'sk' };
    expect(externalServicesFromEnv({ ...keys, S3_ENDPOINT: 'http://minio:9000' }).s3).toEqual({
      endPoint: 'minio',
      port: 9000,
      useSSL: false,
      accessKey: 'ak',
      secretKey: 'sk',
    });
    expect(externalServicesFromEnv({ ...keys, S3_ENDPOINT: 'minio:9000' }).s3).toMatchObject({ endPoint: 'minio', port: 9000, useSSL: false });
    expect(externalServicesFromEnv({ ...keys, S3_ENDPOINT: 'https://s3.example.com' }).s3).toMatchObject({ port: 443, useSSL: true });
    expect(externalServicesFromEnv({ ...keys, S3_ENDPOINT: 'http://[::1]:9000' }).s3).toMatchObject({ endPoint: '::1', port: 9000 });
  });

  it('names the bad variable and the fix', () => {
    expect(errorOf(() => externalServicesFromEnv({ TEMPORAL_ADDRESS: 'http://x:7233' }))).toMatchObject({
      code: 'STACK_BAD_CONFIG',
      service: 'temporal',
    });
    expect(errorOf(() => externalServicesFromEnv({ DATABASE_URL: 'mysql://x/y' }))).toMatchObject({ service: 'postgres' });
    expect(errorOf(() => externalServicesFromEnv({ S3_ENDPOINT: 'ftp://x', S3_ACCESS_KEY: 'a', S3_SECRET_KEY: 'b' })).service).toBe('s3');
    expect(errorOf(() => externalServicesFromEnv({ S3_ENDPOINT: 'http://x:9000/bucket', S3_ACCESS_KEY: 'a', S3_SECRET_KEY: 'b' })).code).toBe(
      'STACK_BAD_CONFIG',
    );
    const missingKeys = errorOf(() => externalServicesFromEnv({ S3_ENDPOINT: 'http://x:9000', S3_ACCESS_KEY: 'a' }));
    expect(missingKeys.message).toContain('S3_SECRET_KEY');
    expect(missingKeys.hint).toContain('unset S3_ENDPOINT');
  });
});

describe('bucketSettings', () => {
  it('defaults the bucket and region and takes S3_BUCKET / S3_REGION', () => {
    expect(bucketSettings({})).toEqual({ bucket: 'crawler-bodies', region: 'us-east-1' });
    expect(bucketSettings({ S3_BUCKET: 'b', S3_REGION: 'eu-west-1' })).toEqual({ bucket: 'b', region: 'eu-west-1' });
  });
});
