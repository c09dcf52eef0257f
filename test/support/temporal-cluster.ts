// Temporal as a real server, set up as docker-compose.yml sets it up, for the cluster test: the
// server at the release the compose file's image carries (tools/temporal-server, built by
// scripts/install-tools.sh), its Postgres schemas made by the server's own schema tool as the
// image's auto-setup does, the config rendered from the server module's docker/config_template.yaml
// with the compose service's environment, the dynamic config file the compose file mounts, and the
// frontend, history, matching and worker services each in a process of its own. Only the topology
// differs from the compose file: loopback addresses and ports handed out here, this machine's
// Postgres. test/unit/cluster-config.test.ts checks that.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { projectRoot } from '../../src/stack/index.js';
import { findFreePorts, isPortOpen } from '../../src/stack/free-port.js';
import { isProcessAlive, readPidFile, spawnDetached, stopProcess, tailFile } from '../../src/stack/process-supervisor.js';
import { ensureNamespace, temporalAnswers } from '../../src/stack/temporal-dev-server.js';

const root = projectRoot();

/** The services of a Temporal server, each run in its own process here (the image runs them in one). */
export const CLUSTER_SERVICES = ['history', 'matching', 'frontend', 'worker'] as const;
export type ClusterService = (typeof CLUSTER_SERVICES)[number];

/** Retention of the namespace the image's auto-setup registers (DEFAULT_NAMESPACE_RETENTION, 24h). */
const DEFAULT_NAMESPACE_RETENTION_DAYS = 1;

/**
 * The server's membership table keeps a service's membership port in a SMALLINT: a port above
 * 32767 fails the service's start ("value out of range for type smallint").
 */
const MAX_MEMBERSHIP_PORT = 32_767;

// What docker-compose.yml says, as far as the cluster stack reads it.
export interface ComposeService {
  image?: string;
  environment?: Record<string, string>;
  command?: string[];
  volumes?: string[];
}
export interface ComposeFile {
  services: Record<string, ComposeService>;
  'x-crawler-env': Record<string, string>;
}

export function readComposeFile(): ComposeFile {
  return parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as ComposeFile;
}

/** `${NAME:-default}` as compose interpolates it with NAME unset. */
export function composeDefault(value: string): string {
  return value.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');
}

/** The server version the compose file's Temporal image carries (its tag's default). */
export function composeTemporalVersion(compose: ComposeFile): string {
  const image = composeDefault(compose.services['temporal']?.image ?? '');
  const match = /^temporalio\/auto-setup:(\d+\.\d+\.\d+)$/.exec(image);
  if (match === null) throw new Error(`docker-compose.yml's temporal image '${image}' is not temporalio/auto-setup:<version>`);
  return match[1]!;
}

/** The host file the compose file mounts where the temporal service's DYNAMIC_CONFIG_FILE_PATH points. */
export function composeDynamicConfigFile(compose: ComposeFile): string {
  const temporal = compose.services['temporal']!;
  const inContainer = path.posix.resolve('/etc/temporal', temporal.environment?.['DYNAMIC_CONFIG_FILE_PATH'] ?? '');
  const mount = (temporal.volumes ?? []).map((volume) => volume.split(':')).find(([, target]) => target === inContainer);
  if (mount === undefined) throw new Error(`docker-compose.yml mounts nothing at ${inContainer}, the temporal service's DYNAMIC_CONFIG_FILE_PATH`);
  return path.resolve(root, mount[0]!);
}

/** The version of go.temporal.io/server tools/temporal-server is built from (its go.mod). */
export function builtServerVersion(): string {
  const goMod = readFileSync(path.join(root, 'tools', 'temporal-server', 'go.mod'), 'utf8');
  const match = /^require go\.temporal\.io\/server v(\S+)$/m.exec(goMod);
  if (match === null) throw new Error('tools/temporal-server/go.mod requires no go.temporal.io/server version');
  return match[1]!;
}

/** The server module's folder in the Go module cache: its config template and schema files. */
export function serverModuleDir(): string {
  return execFileSync('go', ['list', '-m', '-f', '{{.Dir}}', 'go.temporal.io/server'], { cwd: path.join(root, 'tools', 'temporal-server'), encoding: 'utf8' }).trim();
}

export function clusterTool(name: 'temporal-server' | 'temporal-sql-tool'): string {
  const binary = path.join(root, '.tools', 'bin', name);
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run \`npm run tools\` (scripts/install-tools.sh builds it from tools/temporal-server)`);
  return binary;
}

export interface ClusterPostgres {
  host: string;
  port: number;
  user: string;
  password: string;
}

/** The ports of one server: each service's gRPC and membership ports, and the frontend's HTTP API. */
export type ServerPorts = Record<ClusterService, { grpc: number; membership: number }> & { frontendHttp: number };

/**
 * The environment the server's config template is rendered with: the compose file's temporal
 * service environment, its topology (Postgres address and credentials, the dynamic config file's
 * path, the ports, the address to bind: the image's entrypoint sets BIND_ON_IP) replaced by this
 * machine's.
 */
export function clusterServerEnv(compose: ComposeFile, topology: { postgres: ClusterPostgres; ports: ServerPorts }): Record<string, string> {
  const env = Object.fromEntries(Object.entries(compose.services['temporal']?.environment ?? {}).map(([name, value]) => [name, composeDefault(String(value))]));
  const { postgres, ports } = topology;
  return {
    ...env,
    POSTGRES_SEEDS: postgres.host,
    DB_PORT: String(postgres.port),
    POSTGRES_USER: postgres.user,
    POSTGRES_PWD: postgres.password,
    DYNAMIC_CONFIG_FILE_PATH: composeDynamicConfigFile(compose),
    BIND_ON_IP: '127.0.0.1',
    FRONTEND_GRPC_PORT: String(ports.frontend.grpc),
    FRONTEND_MEMBERSHIP_PORT: String(ports.frontend.membership),
    FRONTEND_HTTP_PORT: String(ports.frontendHttp),
    HISTORY_GRPC_PORT: String(ports.history.grpc),
    HISTORY_MEMBERSHIP_PORT: String(ports.history.membership),
    MATCHING_GRPC_PORT: String(ports.matching.grpc),
    MATCHING_MEMBERSHIP_PORT: String(ports.matching.membership),
    WORKER_GRPC_PORT: String(ports.worker.grpc),
    WORKER_MEMBERSHIP_PORT: String(ports.worker.membership),
  };
}

/** The crawler's environment (the compose file's x-crawler-env) with this machine's services. */
export function clusterCrawlerEnv(
  compose: ComposeFile,
  services: { temporalAddress: string; databaseUrl: string; s3: { endpoint: string; accessKey: string; secretKey: string; bucket: string; region: string } },
): Record<string, string> {
  const env: Record<string, string> = {
    TEMPORAL_ADDRESS: services.temporalAddress,
    DATABASE_URL: services.databaseUrl,
    S3_ENDPOINT: services.s3.endpoint,
    S3_ACCESS_KEY: services.s3.accessKey,
    S3_SECRET_KEY: services.s3.secretKey,
    S3_BUCKET: services.s3.bucket,
    S3_REGION: services.s3.region,
  };
  const expected = Object.keys(compose['x-crawler-env']).sort();
  if (JSON.stringify(Object.keys(env).sort()) !== JSON.stringify(expected)) {
    throw new Error(`docker-compose.yml's x-crawler-env sets ${expected.join(', ')}; the cluster stack sets ${Object.keys(env).sort().join(', ')}`);
  }
  return env;
}

/**
 * The compose setup service's environment with this machine's services: the crawler's, and the
 * Postgres administrator's URL over which it makes the crawler's own role (POSTGRES_ADMIN_URL).
 * Throws when the compose file gives the setup a variable this stack does not.
 */
export function clusterSetupEnv(compose: ComposeFile, crawlerEnv: Record<string, string>, postgresAdminUrl: string): Record<string, string> {
  const composed = Object.fromEntries(Object.entries(compose.services['crawler-setup']?.environment ?? {}).map(([name, value]) => [name, composeDefault(String(value))]));
  const env = { ...composed, ...crawlerEnv, POSTGRES_ADMIN_URL: postgresAdminUrl };
  const unset = Object.entries(env).filter(([, value]) => value.includes('${')).map(([name]) => name);
  if (unset.length > 0) throw new Error(`docker-compose.yml's crawler-setup takes ${unset.join(', ')} from secrets the cluster stack does not give`);
  return env;
}

/**
 * A compose service's command as this stack runs it: the same program and flags, the topology
 * flags' values (`--metrics-port`, `--metrics-host`, the token file's path) replaced, `extra` appended.
 */
export function composeCommand(compose: ComposeFile, service: string, replace: Record<string, string> = {}, extra: string[] = []): string[] {
  const command = [...(compose.services[service]?.command ?? [])];
  if (command.length === 0) throw new Error(`docker-compose.yml's ${service} service has no command`);
  for (const [flag, value] of Object.entries(replace)) {
    const at = command.indexOf(flag);
    if (at < 0) throw new Error(`docker-compose.yml's ${service} command has no ${flag}`);
    command[at + 1] = value;
  }
  return [...command, ...extra];
}

async function freeServerPorts(): Promise<ServerPorts> {
  const grpc = await findFreePorts(5);
  // Membership ports below 32768 (the schema's SMALLINT): preferred ones from that range, checked.
  let membership: number[] = [];
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const preferred = Array.from({ length: 4 }, () => 20_000 + Math.floor(Math.random() * (MAX_MEMBERSHIP_PORT - 20_000)));
    membership = await findFreePorts(4, { preferredPorts: preferred, excludePorts: new Set(grpc) });
    if (membership.every((port) => port <= MAX_MEMBERSHIP_PORT)) break;
  }
  if (!membership.every((port) => port <= MAX_MEMBERSHIP_PORT)) throw new Error(`no 4 free ports at or below ${MAX_MEMBERSHIP_PORT} for the Temporal services' membership`);
  return {
    frontend: { grpc: grpc[0]!, membership: membership[0]! },
    history: { grpc: grpc[1]!, membership: membership[1]! },
    matching: { grpc: grpc[2]!, membership: membership[2]! },
    worker: { grpc: grpc[3]!, membership: membership[3]! },
    frontendHttp: grpc[4]!,
  };
}

/**
 * The image's auto-setup for Postgres, with the server's schema tool: each database created unless
 * it is the user's own, its schema set up at 0.0, then updated through every versioned step.
 */
export function setUpClusterSchemas(postgres: ClusterPostgres, env: Record<string, string>, log: (line: string) => void = () => undefined): void {
  const tool = clusterTool('temporal-sql-tool');
  const schemaDir = path.join(serverModuleDir(), 'schema', 'postgresql', 'v12');
  const common = ['--plugin', env['DB'] ?? 'postgres12', '--ep', postgres.host, '-p', String(postgres.port), '-u', postgres.user, '--pw', postgres.password];
  const databases = [
    [env['DBNAME'] ?? 'temporal', 'temporal'],
    [env['VISIBILITY_DBNAME'] ?? 'temporal_visibility', 'visibility'],
  ] as const;
  for (const [database, schema] of databases) {
    const run = (args: string[]): void => {
      try {
        execFileSync(tool, [...common, '--db', database, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      } catch (error) {
        const stderr = String((error as { stderr?: string }).stderr ?? error);
        throw new Error(`temporal-sql-tool --db ${database} ${args.join(' ')} failed:\n${stderr.trimEnd().split('\n').slice(-3).join('\n')}`);
      }
    };
    if (database !== postgres.user) run(['create-database']);
    run(['setup-schema', '-v', '0.0']);
    run(['update-schema', '-d', path.join(schemaDir, schema, 'versioned')]);
    log(`schema of ${database} set up (temporal-sql-tool, ${schema}/versioned)`);
  }
}

export interface TemporalCluster {
  /** The frontend's gRPC address. */
  address: string;
  namespace: string;
  pids: Record<ClusterService, number>;
  logFiles: Record<ClusterService, string>;
  /** CPU time the server's processes have used so far, in seconds (utime + stime from /proc). */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

export interface StartTemporalClusterOptions {
  /** Rendered configs, logs and pid files go here. */
  dir: string;
  postgres: ClusterPostgres;
  /** How long the services may take to serve the namespace. Default 180,000 ms (4 processes on a loaded 2-core machine). */
  startTimeoutMs?: number;
  log?: (line: string) => void;
}

/** Sets up the schemas, starts the four services and registers the default namespace, as the image's auto-setup does. */
export async function startTemporalCluster(options: StartTemporalClusterOptions): Promise<TemporalCluster> {
  const log = options.log ?? (() => undefined);
  const compose = readComposeFile();
  const version = builtServerVersion();
  if (version !== composeTemporalVersion(compose)) throw new Error(`tools/temporal-server builds server ${version}, docker-compose.yml runs ${composeTemporalVersion(compose)}`);
  const ports = await freeServerPorts();
  const env = clusterServerEnv(compose, { postgres: options.postgres, ports });
  setUpClusterSchemas(options.postgres, env, log);
  const template = path.join(serverModuleDir(), 'docker', 'config_template.yaml');
  const binary = clusterTool('temporal-server');
  const pids = {} as Record<ClusterService, number>;
  const logFiles = {} as Record<ClusterService, string>;
  const start = (service: ClusterService): void => {
    const started = spawnDetached({
      command: binary,
      args: ['start', '-template', template, '-config-dir', path.join(options.dir, service), '-service', service],
      env: { PATH: process.env['PATH'] ?? '', ...env },
      logFile: path.join(options.dir, `${service}.log`),
      pidFile: path.join(options.dir, `${service}.pid`),
    });
    pids[service] = started.pid;
    logFiles[service] = started.logFile;
  };
  const deadline = Date.now() + (options.startTimeoutMs ?? 180_000);
  const serving = async (service: ClusterService, ready: () => Promise<boolean>): Promise<void> => {
    for (;;) {
      const dead = Object.keys(pids).find((name) => !isProcessAlive(pids[name as ClusterService]));
      if (dead !== undefined) throw new Error(`the Temporal ${dead} service exited while starting:\n${tailFile(logFiles[dead as ClusterService])}`);
      if (await ready().catch(() => false)) return;
      if (Date.now() > deadline) throw new Error(`the Temporal ${service} service did not serve in time; logs in ${options.dir}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  };
  const address = `127.0.0.1:${ports.frontend.grpc}`;
  const cluster: TemporalCluster = {
    address,
    namespace: 'default',
    pids,
    logFiles,
    cpuSeconds: () => CLUSTER_SERVICES.reduce((sum, service) => sum + processCpuSeconds(pids[service]), 0),
    stop: () => stopTemporalCluster(options.dir),
  };
  try {
    // One service first: on a fresh database every service that starts writes the cluster's
    // metadata, and services starting side by side race for it (the loser exits: "SaveClusterMetadata
    // encountered version mismatch"). The history service serves once it has written it.
    start('history');
    await serving('history', () => isPortOpen('127.0.0.1', ports.history.grpc));
    for (const service of CLUSTER_SERVICES) if (service !== 'history') start(service);
    log(`Temporal ${version} starting: frontend ${address}, ${CLUSTER_SERVICES.map((service) => `${service} pid ${pids[service]}`).join(', ')}`);
    await serving('frontend', () => temporalAnswers(address, 'temporal-system', 3_000));
    if (await ensureNamespace(address, cluster.namespace, DEFAULT_NAMESPACE_RETENTION_DAYS)) log(`registered namespace ${cluster.namespace}`);
    // The matching and worker services too (a service that died after the frontend answered).
    await serving('worker', () => Promise.resolve(true));
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}

/** Stops the services a cluster started in `dir` (their pid files), if still running. */
export async function stopTemporalCluster(dir: string): Promise<void> {
  if (!existsSync(dir)) return;
  const pidFiles = readdirSync(dir).filter((name) => name.endsWith('.pid'));
  await Promise.all(
    pidFiles.map(async (name) => {
      const pid = readPidFile(path.join(dir, name));
      if (pid !== undefined) await stopProcess(pid, { expectedProgram: 'temporal-server', graceMs: 20_000 });
    }),
  );
}

/** utime + stime of a process from /proc/<pid>/stat, in seconds (0 once it has exited). */
export function processCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th fields.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return ticks / clockTicksPerSecond();
  } catch {
    return 0;
  }
}

let ticksPerSecond: number | undefined;
function clockTicksPerSecond(): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return ticksPerSecond;
}

/** Spawns a command and resolves with its exit code and output (for the compose setup command). */
export function runToExit(command: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}
