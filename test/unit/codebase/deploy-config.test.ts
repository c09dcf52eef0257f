// The compose file resolves as `docker compose config` resolves it (tools/compose-config, built on
// the same library, since this machine has no compose plugin): only with real secrets or the
// explicit local env file, each service holding only the secrets it needs; and its monitoring
// services fit: Prometheus scrapes the workers on the port they serve with the token they ask for,
// Grafana gets its data source and the committed dashboard. That every metric the dashboard
// queries is exported is checked against a real scrape in test/e2e/metrics.test.ts. The image is
// built from a context (tools/build-context, Docker's own matcher) that holds what it needs and no
// .env file, data or scratch folder; MinIO's setup script gives the crawler a user of its own.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = path.resolve(import.meta.dirname, '../../..');
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');

interface ComposeService {
  image?: string;
  command?: string[];
  volumes?: string[];
  ports?: string[];
  depends_on?: unknown;
  environment?: Record<string, string>;
  secrets?: (string | { source: string; target: string })[];
}
const compose = parse(read('docker-compose.yml')) as { services: Record<string, ComposeService>; volumes: Record<string, unknown> };

/** Every secret docker-compose.yml needs, none of which it may default. */
const REQUIRED_SECRETS = ['POSTGRES_PASSWORD', 'CRAWLER_DB_PASSWORD', 'MINIO_ROOT_USER', 'MINIO_ROOT_PASSWORD', 'CRAWLER_S3_ACCESS_KEY', 'CRAWLER_S3_SECRET_KEY', 'METRICS_TOKEN', 'GRAFANA_ADMIN_PASSWORD'];
const LOCAL_ENV = 'deploy/local.env';

/** A tool of .tools/bin (built by scripts/install-tools.sh, which `npm test` runs first). */
function tool(name: string): string {
  const binary = path.join(root, '.tools', 'bin', name);
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run \`npm run tools\` (scripts/install-tools.sh builds it from tools/${name})`);
  return binary;
}

/** Runs tools/compose-config in an environment without the compose file's variables (a developer's shell may hold some). */
function composeConfig(file: string, envFile?: string): { status: number | null; stdout: string; stderr: string } {
  const args = envFile === undefined ? [file] : ['--env-file', envFile, file];
  const run = spawnSync(tool('compose-config'), args, { cwd: root, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The project as compose resolves it with the local development values. */
function resolvedLocally(): { services: Record<string, ComposeService>; secrets: Record<string, { environment?: string }> } {
  const resolved = composeConfig('docker-compose.yml', LOCAL_ENV);
  expect(resolved.stderr).toBe('');
  expect(resolved.status).toBe(0);
  return parse(resolved.stdout) as { services: Record<string, ComposeService>; secrets: Record<string, { environment?: string }> };
}

const localValues = Object.fromEntries(
  read(LOCAL_ENV)
    .split('\n')
    .filter((line) => /^[A-Z0-9_]+=/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
);

describe('docker compose config', () => {
  it('resolves docker-compose.yml with the local env file, Prometheus and Grafana among its services', () => {
    const services = Object.keys(resolvedLocally().services);
    expect(services).toEqual(expect.arrayContaining(['postgres', 'temporal', 'minio', 'minio-setup', 'crawler-setup', 'worker', 'prometheus', 'grafana']));
  });

  it('refuses to start without real secrets, naming every one that is missing', () => {
    const resolved = composeConfig('docker-compose.yml');
    expect(resolved.status).toBe(1);
    for (const name of REQUIRED_SECRETS) expect(resolved.stderr).toContain(`required variable ${name} is missing a value: see docs/operations.md, Deployment and secrets`);
    expect(resolved.stderr).toContain('--env-file deploy/local.env');
  });

  it.each(REQUIRED_SECRETS)('refuses to start without %s alone, and has no default for it', (name) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'compose-env-'));
    const envFile = path.join(dir, 'without.env');
    writeFileSync(envFile, read(LOCAL_ENV).split('\n').filter((line) => !line.startsWith(`${name}=`)).join('\n'));
    const resolved = composeConfig('docker-compose.yml', envFile);
    expect(resolved.status).toBe(1);
    expect(resolved.stderr).toContain(`required variable ${name} is missing a value`);
    expect(read('docker-compose.yml')).not.toMatch(new RegExp(`\\$\\{${name}(:?-|-)`));
    expect(localValues[name], `${LOCAL_ENV} gives ${name}`).toBeTruthy();
  });

  it("gives the workers the crawler's own Postgres role and MinIO user, and administrator secrets only to the setup services", () => {
    const { services } = resolvedLocally();
    const env = (service: string): Record<string, string> => services[service]!.environment ?? {};
    const databaseUrl = new URL(env('worker')['DATABASE_URL']!);
    expect(databaseUrl.username).toBe('crawler');
    expect(databaseUrl.username).not.toBe(env('postgres')['POSTGRES_USER']);
    expect(decodeURIComponent(databaseUrl.password)).toBe(localValues['CRAWLER_DB_PASSWORD']);
    expect(env('worker')['S3_ACCESS_KEY']).toBe(localValues['CRAWLER_S3_ACCESS_KEY']);
    expect(env('worker')['S3_ACCESS_KEY']).not.toBe(env('minio')['MINIO_ROOT_USER']);
    const adminSecrets = [localValues['POSTGRES_PASSWORD']!, localValues['MINIO_ROOT_PASSWORD']!];
    const holders = Object.entries(services)
      .filter(([, service]) => adminSecrets.some((secret) => JSON.stringify(service.environment ?? {}).includes(secret)))
      .map(([name]) => name)
      .sort();
    expect(holders).toEqual(['crawler-setup', 'minio', 'minio-setup', 'postgres', 'temporal']);
    // The setup makes the role the workers connect as, over the administrator's connection.
    expect(new URL(env('crawler-setup')['POSTGRES_ADMIN_URL']!).username).toBe(env('postgres')['POSTGRES_USER']);
    expect(env('crawler-setup')['DATABASE_URL']).toBe(env('worker')['DATABASE_URL']);
  });

  it('hands the metrics token to the workers and Prometheus as a secret from the environment, not a file of the host', () => {
    const { services, secrets } = resolvedLocally();
    expect(secrets['metrics-token']).toMatchObject({ environment: 'METRICS_TOKEN' });
    const target = (service: string): string | undefined => {
      const secret = services[service]!.secrets?.find((entry) => (typeof entry === 'string' ? entry : entry.source) === 'metrics-token');
      return typeof secret === 'string' ? `/run/secrets/${secret}` : secret?.target;
    };
    const command = services['worker']!.command!;
    expect(command[command.indexOf('--metrics-token-file') + 1]).toBe(target('worker'));
    const prometheus = parse(read('deploy/prometheus/prometheus.yml')) as { scrape_configs: { authorization: { type: string; credentials_file: string } }[] };
    expect(prometheus.scrape_configs[0]!.authorization).toEqual({ type: 'Bearer', credentials_file: target('prometheus') });
  });

  it('refuses a compose file the schema does not allow, naming what is wrong', () => {
    const broken = path.join(mkdtempSync(path.join(tmpdir(), 'compose-')), 'docker-compose.yml');
    writeFileSync(broken, read('docker-compose.yml').replace('    image: prom/prometheus:', '    imagex: prom/prometheus:'));
    const resolved = composeConfig(broken, path.join(root, LOCAL_ENV));
    expect(resolved.status).toBe(1);
    expect(resolved.stderr).toContain('services.prometheus');
  });
});

describe('docker-compose.yml monitoring', () => {
  it('has Prometheus and Grafana beside the crawler, on loopback ports, their named volumes declared', () => {
    const { prometheus, grafana } = compose.services;
    expect(prometheus?.image).toMatch(/^prom\/prometheus:/);
    expect(grafana?.image).toMatch(/^grafana\/grafana:/);
    for (const service of [prometheus!, grafana!]) {
      for (const port of service.ports ?? []) expect(port).toMatch(/^127\.0\.0\.1:/);
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0]!;
        if (source.startsWith('./')) expect(existsSync(path.join(root, source)), `${source} exists`).toBe(true);
        else expect(compose.volumes, `named volume ${source}`).toHaveProperty(source);
      }
    }
  });

  it('has workers serve metrics on the port Prometheus scrapes them at', () => {
    const command = compose.services['worker']!.command!;
    const port = command[command.indexOf('--metrics-port') + 1];
    const prometheus = parse(read('deploy/prometheus/prometheus.yml')) as { scrape_configs: { dns_sd_configs: { names: string[]; port: number }[] }[] };
    const target = prometheus.scrape_configs[0]!.dns_sd_configs[0]!;
    expect(target.names).toEqual(['worker']);
    expect(String(target.port)).toBe(port);
    // Inside the compose network: the worker's metrics listen beyond loopback there.
    expect(command[command.indexOf('--metrics-host') + 1]).toBe('0.0.0.0');
  });

  it('provisions the data source and the dashboard Grafana is pointed at', () => {
    const datasource = parse(read('deploy/grafana/provisioning/datasources/prometheus.yml')) as { datasources: { uid: string; url: string }[] };
    const provider = parse(read('deploy/grafana/provisioning/dashboards/crawler.yml')) as { providers: { options: { path: string } }[] };
    const dashboard = JSON.parse(read('deploy/grafana/dashboards/crawler.json')) as { panels: { title: string; datasource: { uid: string }; targets: { expr: string }[] }[] };
    expect(datasource.datasources[0]!.url).toBe('http://prometheus:9090');
    const mounted = compose.services['grafana']!.volumes!.find((volume) => volume.startsWith('./deploy/grafana/dashboards:'))!.split(':')[1];
    expect(provider.providers[0]!.options.path).toBe(mounted);
    expect(dashboard.panels.length).toBeGreaterThanOrEqual(6);
    for (const panel of dashboard.panels) {
      expect(panel.datasource.uid).toBe(datasource.datasources[0]!.uid);
      expect(panel.targets.length).toBeGreaterThan(0);
    }
    const titles = dashboard.panels.map((panel) => panel.title.toLowerCase()).join(' | ');
    for (const topic of ['fetched', 'failures', 'politeness', 'backlog', 'tier', 'temporal']) expect(titles).toContain(topic);
  });
});

/** The files `docker build` would send for `dir`, by its .dockerignore (tools/build-context). */
function buildContext(dir: string): string[] {
  const run = spawnSync(tool('build-context'), [dir], { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return run.stdout.split('\n').filter(Boolean);
}

/** The source paths of the Dockerfile's COPY lines. */
function copiedPaths(dockerfile: string): string[] {
  return dockerfile
    .split('\n')
    .filter((line) => /^COPY\s/.test(line))
    .flatMap((line) => line.trim().split(/\s+/).slice(1, -1))
    .filter((word) => !word.startsWith('--'));
}

/** What no image may hold: secrets, data, scratch and build output of a checkout. */
const NEVER_IN_CONTEXT = [/(^|\/)\.env/, /(^|\/)\.npmrc$/, /\.(pem|key|log)$/, /^\.git(\/|$)/, /(^|\/)\.crawler-data\//, /(^|\/)\.test-data\//, /^scratch\//, /^bench\/results\//, /(^|\/)node_modules\//, /^dist\//, /^coverage\//, /^\.tools\//, /^deploy\//];

describe('the image', () => {
  it("is built from a context that holds the image's own files and none of a checkout's secrets, data or scratch", () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'build-context-'));
    cpSync(path.join(root, '.dockerignore'), path.join(dir, '.dockerignore'));
    cpSync(path.join(root, 'Dockerfile'), path.join(dir, 'Dockerfile'));
    const kept = ['bin/crawler.js', 'migrations/0001_core.sql', 'package-lock.json', 'package.json', 'scripts/ensure-services.ts', 'src/cli/main.ts', 'src/workflows/index.ts', 'tsconfig.json'];
    const planted = [
      '.env',
      '.env.production',
      'src/.env.local',
      '.npmrc',
      'src/cli/server.key',
      'tls.pem',
      'deploy/local.env',
      '.crawler-data/stack.json',
      '.crawler-data/minio/data/bucket/body.gz',
      'src/.crawler-data/stack.json',
      '.test-data/stack-1/temporal/temporal.db',
      'scratch/notes.md',
      'bench/results/run.json',
      'node_modules/pg/index.js',
      'src/node_modules/x/index.js',
      'dist/cli/main.js',
      'coverage/index.html',
      '.git/config',
      '.tools/bin/minio',
      'worker.log',
      'src/cli/debug.log',
      'scripts/quickstart.ts',
      'test/e2e/crawl.test.ts',
      'docs/operations.md',
    ];
    for (const file of [...kept, ...planted]) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), 'x');
    }
    expect(buildContext(dir)).toEqual(kept);
  });

  it("of this checkout: the context holds no secret, data or scratch folder, and every path the Dockerfile copies by name", () => {
    const context = buildContext(root);
    expect(context.filter((file) => NEVER_IN_CONTEXT.some((pattern) => pattern.test(file)))).toEqual([]);
    const dockerfile = read('Dockerfile');
    expect(dockerfile).not.toMatch(/^COPY\s+(--\S+\s+)*\.\s/m);
    const copied = copiedPaths(dockerfile);
    expect(copied).toEqual(expect.arrayContaining(['package.json', 'bin', 'src', 'migrations']));
    for (const source of copied) expect(context.some((file) => file === source || file.startsWith(`${source}/`)), `${source} is in the context`).toBe(true);
    // Nothing is sent that the image does not copy.
    for (const file of context) expect(copied.some((source) => file === source || file.startsWith(`${source}/`)), `${file} is copied`).toBe(true);
  });
});

describe('deploy/minio/setup.sh', () => {
  /** Runs the script with `mc` replaced by a recorder (no MinIO here): its calls, the policy it made, its exit. */
  function runSetup(dir: string, env: Record<string, string>): { status: number | null; stderr: string; calls: string[]; policy: () => unknown } {
    const bin = path.join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      path.join(bin, 'mc'),
      [
        '#!/bin/sh',
        'echo "$*" >> "$MC_CALLS"',
        'if [ "$1 $2 $3" = "admin policy create" ]; then cp "$6" "$MC_POLICY"; fi',
        'if [ "$1 $2 $3" = "admin policy attach" ]; then',
        '  if [ -n "${MC_ATTACH_ERROR:-}" ]; then echo "$MC_ATTACH_ERROR" >&2; exit 1; fi',
        '  if [ -f "$MC_ATTACHED" ]; then echo "mc: <ERROR> Unable to make user/group policy association. The specified policy change is already in effect." >&2; exit 1; fi',
        '  : > "$MC_ATTACHED"',
        'fi',
        '',
      ].join('\n'),
    );
    chmodSync(path.join(bin, 'mc'), 0o755);
    const files = { MC_CALLS: path.join(dir, 'calls'), MC_POLICY: path.join(dir, 'policy.json'), MC_ATTACHED: path.join(dir, 'attached') };
    const run = spawnSync('sh', [path.join(root, 'deploy/minio/setup.sh')], { encoding: 'utf8', env: { PATH: `${bin}:${process.env.PATH ?? ''}`, ...files, ...env } });
    const calls = existsSync(files.MC_CALLS) ? readFileSync(files.MC_CALLS, 'utf8').split('\n').filter(Boolean) : [];
    return { status: run.status, stderr: run.stderr, calls, policy: () => JSON.parse(readFileSync(files.MC_POLICY, 'utf8')) as unknown };
  }

  const env = { MINIO_ROOT_USER: 'root-user', MINIO_ROOT_PASSWORD: 'root-password', CRAWLER_S3_ACCESS_KEY: 'crawler-user', CRAWLER_S3_SECRET_KEY: 'crawler-password', S3_BUCKET: 'bodies' };

  it("makes the bucket and the crawler's user, holding a policy for that bucket's objects only; a second run changes nothing", () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'minio-setup-'));
    const first = runSetup(dir, env);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.calls).toEqual([
      'alias set crawler-setup http://minio:9000 root-user root-password',
      'mb --ignore-existing crawler-setup/bodies',
      expect.stringMatching(/^admin policy create crawler-setup crawler-bodies \S+$/),
      'admin user add crawler-setup crawler-user crawler-password',
      'admin policy attach crawler-setup crawler-bodies --user crawler-user',
    ]);
    const policy = first.policy() as { Statement: { Effect: string; Action: string[]; Resource: string[] }[] };
    const actions = policy.Statement.flatMap((statement) => statement.Action);
    expect(actions.every((action) => /^s3:[A-Za-z]+$/.test(action))).toBe(true);
    expect(actions).toEqual(expect.arrayContaining(['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:ListBucket']));
    expect(actions).not.toContain('s3:CreateBucket');
    expect(actions).not.toContain('s3:DeleteBucket');
    for (const statement of policy.Statement) {
      expect(statement.Effect).toBe('Allow');
      for (const resource of statement.Resource) expect(['arn:aws:s3:::bodies', 'arn:aws:s3:::bodies/*']).toContain(resource);
    }
    const second = runSetup(dir, env);
    expect(second.status).toBe(0);
  });

  it("refuses to hand the crawler MinIO's root user", () => {
    const run = runSetup(mkdtempSync(path.join(tmpdir(), 'minio-setup-')), { ...env, CRAWLER_S3_ACCESS_KEY: 'root-user' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('root user');
    expect(run.calls).toEqual([]);
  });

  it('fails, saying why, when mc fails otherwise than on a policy already attached', () => {
    const run = runSetup(mkdtempSync(path.join(tmpdir(), 'minio-setup-')), { ...env, MC_ATTACH_ERROR: 'mc: <ERROR> Unable to attach the policy: access denied.' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('access denied');
  });
});
