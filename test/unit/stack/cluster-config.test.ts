// docker-compose.yml and the cluster test's stack (test/support/temporal-cluster.ts) start the same
// binaries with the same settings: the same Temporal server release, its config rendered from the
// same template with the same environment but for the topology (addresses, ports, credentials,
// where the dynamic config file lies), the same dynamic config file, whose keys are the dev
// server's too, and the same setup and worker commands. The cluster test (test/e2e/cluster) then
// proves the crawler on that stack.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { temporalDevServerArgs } from '../../../src/stack/temporal-dev-server.js';
import {
  builtServerVersion,
  clusterCrawlerEnv,
  clusterServerEnv,
  clusterSetupEnv,
  clusterTool,
  composeCommand,
  composeDefault,
  composeDynamicConfigFile,
  composeTemporalVersion,
  readComposeFile,
  serverModuleDir,
  type ServerPorts,
} from '../../support/temporal-cluster.js';

const root = path.resolve(import.meta.dirname, '../../..');
const compose = readComposeFile();
const ports: ServerPorts = {
  frontend: { grpc: 41001, membership: 21001 },
  history: { grpc: 41002, membership: 21002 },
  matching: { grpc: 41003, membership: 21003 },
  worker: { grpc: 41004, membership: 21004 },
  frontendHttp: 41005,
};
const postgres = { host: '127.0.0.1', port: 45432, user: 'crawler', password: 'local-secret' };
const ours = clusterServerEnv(compose, { postgres, ports });
const composeEnv = Object.fromEntries(Object.entries(compose.services['temporal']!.environment!).map(([name, value]) => [name, composeDefault(String(value))]));

/** Variables that say where things are, not how the server behaves. */
const TOPOLOGY = /^(POSTGRES_SEEDS|DB_PORT|POSTGRES_USER|POSTGRES_PWD|DYNAMIC_CONFIG_FILE_PATH|BIND_ON_IP|(FRONTEND|HISTORY|MATCHING|WORKER)_(GRPC|MEMBERSHIP|HTTP)_PORT)$/;

/** The server config `temporal-server render` makes of the module's template with `env`. */
function rendered(env: Record<string, string>): unknown {
  const template = path.join(serverModuleDir(), 'docker', 'config_template.yaml');
  return parse(execFileSync(clusterTool('temporal-server'), ['render', '-template', template], { env: { PATH: process.env['PATH'] ?? '', ...env }, encoding: 'utf8' }));
}

/** A rendered config with its topology (addresses, ports, credentials, file paths) blanked. */
function withoutTopology(config: unknown): unknown {
  const keys = /^(connectAddr|user|password|bindOnIP|grpcPort|membershipPort|httpPort|rpcAddress|httpAddress|filepath)$/;
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, keys.test(key) ? '<topology>' : walk(inner)]));
  };
  return walk(config);
}

describe('the cluster stack and docker-compose.yml', () => {
  it('run the same Temporal server release', () => {
    expect(builtServerVersion()).toBe(composeTemporalVersion(compose));
    // The binary the stack starts was built from that release (scripts/install-tools.sh).
    const built = execFileSync('go', ['version', '-m', clusterTool('temporal-server')], { encoding: 'utf8' });
    expect(built).toMatch(new RegExp(`\\bdep\\s+go\\.temporal\\.io/server\\s+v${composeTemporalVersion(compose).replace(/\./g, '\\.')}\\b`));
  });

  it('give the server the compose environment, changing only the topology', () => {
    for (const [name, value] of Object.entries(composeEnv)) if (!TOPOLOGY.test(name)) expect(ours[name], name).toBe(value);
    for (const name of Object.keys(ours)) if (!(name in composeEnv)) expect(name, `${name} is added by the stack`).toMatch(TOPOLOGY);
    expect(ours['DB']).toBe('postgres12');
  });

  it('render the same server config but for addresses, ports, credentials and paths', () => {
    // The image's entrypoint binds the container's address (BIND_ON_IP).
    const composeConfig = rendered({ ...composeEnv, BIND_ON_IP: '172.18.0.3' });
    const ourConfig = rendered(ours);
    expect(withoutTopology(ourConfig)).toEqual(withoutTopology(composeConfig));
    // Postgres persistence and SQL visibility, each in its database.
    const stores = (ourConfig as { persistence: { visibilityStore: string; datastores: Record<string, { sql: { pluginName: string; databaseName: string } }> } }).persistence;
    expect(stores.visibilityStore).toBe('visibility');
    expect(stores.datastores['default']!.sql).toMatchObject({ pluginName: 'postgres12', databaseName: 'temporal' });
    expect(stores.datastores['visibility']!.sql).toMatchObject({ pluginName: 'postgres12', databaseName: 'temporal_visibility' });
  });

  it('read the same dynamic config file, which sets what the dev server is started with', () => {
    const file = composeDynamicConfigFile(compose);
    expect(path.relative(root, file)).toBe(path.join('deploy', 'temporal-dynamic-config.yaml'));
    expect(ours['DYNAMIC_CONFIG_FILE_PATH']).toBe(file);
    const deployed = parse(readFileSync(file, 'utf8')) as Record<string, { value: unknown }[]>;
    const args = temporalDevServerArgs({ binary: 'temporal', dir: '/tmp/x', port: 1, uiPort: 2 });
    const devServer = Object.fromEntries(
      args.flatMap((arg, i) => (arg === '--dynamic-config-value' ? [args[i + 1]!.split(/=(.*)/s).slice(0, 2)] : [])).map(([key, json]) => [key, JSON.parse(json!) as unknown]),
    );
    expect(Object.fromEntries(Object.entries(deployed).map(([key, values]) => [key, values[0]!.value]))).toEqual(devServer);
  });

  it('run the compose setup and worker commands, the worker’s metrics address and token file aside', () => {
    expect(composeCommand(compose, 'crawler-setup')).toEqual(['node', 'bin/run-ts.js', 'scripts/ensure-services.ts']);
    const worker = composeCommand(compose, 'worker', { '--metrics-port': '40000', '--metrics-host': '127.0.0.1', '--metrics-token-file': '/tmp/token' });
    const composed = compose.services['worker']!.command!;
    expect(worker.filter((arg, i) => arg !== composed[i])).toEqual(['40000', '127.0.0.1', '/tmp/token']);
    expect(() => composeCommand(compose, 'worker', { '--no-such-flag': 'x' })).toThrow(/has no --no-such-flag/);
    // Every crawler variable the compose file sets, the stack sets.
    const s3 = { endpoint: 'http://127.0.0.1:9000', accessKey: 'a', secretKey: 'b', bucket: 'c', region: 'us-east-1' };
    const crawlerEnv = clusterCrawlerEnv(compose, { temporalAddress: '127.0.0.1:7233', databaseUrl: 'postgres://x', s3 });
    expect(Object.keys(crawlerEnv).sort()).toEqual(Object.keys(compose['x-crawler-env']).sort());
    // And every variable of the setup, the administrator's URL among them.
    expect(clusterSetupEnv(compose, crawlerEnv, 'postgres://admin:secret@127.0.0.1/postgres')).toMatchObject({ POSTGRES_ADMIN_URL: 'postgres://admin:secret@127.0.0.1/postgres', DATABASE_URL: 'postgres://x' });
  });
});
