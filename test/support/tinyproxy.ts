// A real forward proxy nobody here wrote, for the proxy tests: Debian's tinyproxy (installed by
// .ci/run), started as our own process on a free loopback port with a config file this harness
// writes, never the system service. Its log names every CONNECT it served.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { findFreePorts } from '../../src/stack/free-port.js';

export interface TinyproxyOptions {
  /** Folder for its config and log. */
  dir: string;
  /** Ask for Basic credentials (tinyproxy's BasicAuth): without them it answers 407. Default none. */
  basicAuth?: { user: string; password: string };
  /** Address its connections to the targets come from (tinyproxy's Bind): the web's log then tells proxied requests apart. Default the system's choice. */
  bindAddress?: string;
  /** Port to listen on. Default a free one. */
  port?: number;
}

export interface Tinyproxy {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly port: number;
  readonly logFile: string;
  /** The log as written so far. */
  log(): string;
  /** Targets (host:port) of the CONNECTs it was asked for, in order. */
  connects(): string[];
  /** Kills it (SIGKILL: connections drop as in a crash). */
  kill(): Promise<void>;
  /** Starts it again on the same port, the log kept; with `basicAuth`, asking for those credentials from now on (null: none). */
  restart(options?: { basicAuth?: { user: string; password: string } | null }): Promise<void>;
  /** Stops it for good. */
  stop(): Promise<void>;
}

/** The tinyproxy binary, or an error saying how to install it. */
export function tinyproxyBinary(): string {
  for (const candidate of ['/usr/bin/tinyproxy', '/usr/sbin/tinyproxy']) if (existsSync(candidate)) return candidate;
  const which = spawnSync('sh', ['-c', 'command -v tinyproxy'], { encoding: 'utf8' });
  const found = which.stdout.trim();
  if (which.status === 0 && found !== '') return found;
  throw new Error('tinyproxy is not installed: .ci/run installs it (apt-get install -y tinyproxy)');
}

export async function startTinyproxy(options: TinyproxyOptions): Promise<Tinyproxy> {
  const binary = tinyproxyBinary();
  mkdirSync(options.dir, { recursive: true });
  const port = options.port ?? (await findFreePorts(1))[0]!;
  const logFile = path.join(options.dir, 'tinyproxy.log');
  const configFile = path.join(options.dir, 'tinyproxy.conf');
  writeFileSync(logFile, '');
  const writeConfig = (basicAuth: TinyproxyOptions['basicAuth']): void =>
    writeFileSync(
      configFile,
      [
        `Port ${port}`,
        'Listen 127.0.0.1',
        'Timeout 60',
        `LogFile "${logFile}"`,
        'LogLevel Connect',
        'MaxClients 200',
        'DisableViaHeader Yes',
        ...(basicAuth ? [`BasicAuth ${basicAuth.user} ${basicAuth.password}`] : []),
        ...(options.bindAddress ? [`Bind ${options.bindAddress}`] : []),
        '',
      ].join('\n'),
    );
  writeConfig(options.basicAuth);

  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    // -d: in the foreground, as our child, so that it dies with the test run.
    const started = spawn(binary, ['-d', '-c', configFile], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    started.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child = started;
    const deadline = Date.now() + 10_000;
    while (!(await accepts(port))) {
      if (started.exitCode !== null || Date.now() > deadline) {
        started.kill('SIGKILL');
        throw new Error(`tinyproxy did not listen on 127.0.0.1:${port} (exit ${String(started.exitCode)}): ${stderr}\n${readFileSync(logFile, 'utf8').slice(-2000)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const kill = async (signal: NodeJS.Signals): Promise<void> => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill(signal);
    await exited;
  };
  await start();

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    logFile,
    log: () => readFileSync(logFile, 'utf8'),
    connects: () => [...readFileSync(logFile, 'utf8').matchAll(/Request \(file descriptor \d+\): CONNECT (\S+) HTTP/g)].map((match) => match[1]!),
    kill: () => kill('SIGKILL'),
    restart: async (restartOptions = {}) => {
      await kill('SIGKILL');
      if (restartOptions.basicAuth !== undefined) writeConfig(restartOptions.basicAuth ?? undefined);
      await start();
    },
    stop: () => kill('SIGTERM'),
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
