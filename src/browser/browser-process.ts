import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { BrowserError } from './errors.js';
import { livePidsMentioning, processGroupFigures, type ProcessGroupFigures } from './process-tree.js';

/**
 * A port nothing listens on: every request the browser would send itself goes to this proxy and
 * fails. Requests reach the network only when the renderer's route handler fetches them (through
 * our HTTP client and its gate) and fulfils them; one the handler let through to the browser's own
 * network stack, a prefetch or a connection the routing does not see, goes nowhere.
 */
const DEAD_PROXY = 'http://127.0.0.1:1';

export interface BrowserLaunchOptions {
  /** The browser binary (findChromium). */
  executablePath: string;
  /** Where each browser's fresh profile folder is made. Default the system's temporary folder. */
  profileRoot?: string;
  /** How long the browser may take to open its DevTools endpoint, ms. Default 20,000. */
  launchTimeoutMs?: number;
  /** V8 heap of each page, MiB: a page that allocates more crashes its renderer, not the machine. Default 512. */
  pageHeapMiB?: number;
}

/**
 * Flags for a headless browser that does only what the crawler asks: no GPU, no QUIC (every request
 * is one the route handler sees), no first-run, sync, component updates, background or default-app
 * traffic, and a proxy that leads nowhere for anything the routing misses.
 */
export function chromiumFlags(profileDir: string, pageHeapMiB: number): string[] {
  return [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-extensions',
    '--disable-default-apps',
    '--disable-breakpad',
    '--disable-dev-shm-usage',
    '--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,AutofillServerCommunication,CertificateTransparencyComponentUpdater',
    '--mute-audio',
    '--hide-scrollbars',
    '--metrics-recording-only',
    '--password-store=basic',
    '--noerrdialogs',
    `--js-flags=--max-old-space-size=${pageHeapMiB}`,
    `--proxy-server=${DEAD_PROXY}`,
    // Loopback too: without this Chromium sends localhost straight out, past the proxy.
    '--proxy-bypass-list=<-loopback>',
    `--user-data-dir=${profileDir}`,
    '--remote-debugging-address=127.0.0.1',
    '--remote-debugging-port=0',
    'about:blank',
  ];
}

/**
 * One headless Chromium: spawned as the leader of its own process group, with a fresh profile
 * folder, driven by playwright-core over CDP. Closing it kills the whole group and any process
 * still naming its profile (the crash handler daemonizes out of the group), then removes the folder.
 */
export class BrowserProcess {
  private exitedFlag = false;
  private closing: Promise<void> | undefined;

  private constructor(
    readonly browser: Browser,
    private readonly child: ChildProcess,
    readonly profileDir: string,
    /** Resolves when the browser's main process has exited. */
    readonly exited: Promise<void>,
  ) {
    void exited.then(() => (this.exitedFlag = true));
  }

  /** The browser's main process id, which is also its process group id. */
  get pid(): number {
    return this.child.pid!;
  }

  /** The main process runs and the CDP connection is up. */
  get alive(): boolean {
    return !this.exitedFlag && this.closing === undefined && this.browser.isConnected();
  }

  static async launch(options: BrowserLaunchOptions): Promise<BrowserProcess> {
    const profileRoot = options.profileRoot ?? os.tmpdir();
    await mkdir(profileRoot, { recursive: true });
    const profileDir = await mkdtemp(path.join(profileRoot, 'crawler-browser-'));
    let child: ChildProcess;
    try {
      child = spawn(options.executablePath, chromiumFlags(profileDir, options.pageHeapMiB ?? 512), {
        detached: true,
        stdio: ['ignore', 'ignore', 'pipe'],
        // The crash handler's database and every cache go inside the profile, not the user's home.
        env: { ...process.env, HOME: profileDir, XDG_CONFIG_HOME: path.join(profileDir, 'config'), XDG_CACHE_HOME: path.join(profileDir, 'cache') },
      });
    } catch (error) {
      await rm(profileDir, { recursive: true, force: true });
      throw new BrowserError('BROWSER_UNAVAILABLE', `could not start ${options.executablePath}: ${String(error)}`, { cause: error });
    }
    const exited = new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.once('error', () => resolve());
    });
    try {
      const endpoint = await devToolsEndpoint(child, options.launchTimeoutMs ?? 20_000);
      const browser = await chromium.connectOverCDP(endpoint, { timeout: options.launchTimeoutMs ?? 20_000 });
      // Nothing more is read from stderr: drain it, or a chatty browser would block on a full pipe.
      child.stderr?.resume();
      return new BrowserProcess(browser, child, profileDir, exited);
    } catch (error) {
      killGroup(child.pid);
      await removeStragglers(profileDir);
      await rm(profileDir, { recursive: true, force: true });
      throw error instanceof BrowserError ? error : new BrowserError('BROWSER_UNAVAILABLE', `${options.executablePath} did not start: ${String(error)}`, { cause: error });
    }
  }

  /** CPU and memory of the browser's processes now. */
  figures(withMemory: boolean): Promise<ProcessGroupFigures> {
    return processGroupFigures(this.pid, withMemory);
  }

  /** Closes the browser (briefly gracefully, then by SIGKILL to its group), leaving no process of it behind. */
  close(): Promise<void> {
    this.closing ??= this.closeNow();
    return this.closing;
  }

  private async closeNow(): Promise<void> {
    if (!this.exitedFlag) {
      await Promise.race([this.browser.close().catch(() => undefined), sleep(2000)]);
    }
    killGroup(this.pid);
    await Promise.race([this.exited, sleep(5000)]);
    await removeStragglers(this.profileDir);
    await rm(this.profileDir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
  }
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Processes that left the group (the crash handler daemonizes) but still name the profile: killed, and waited for. */
async function removeStragglers(profileDir: string): Promise<void> {
  for (let round = 0; round < 20; round++) {
    const pids = await livePidsMentioning(profileDir);
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
    await sleep(50);
  }
}

/** The ws:// address Chromium prints on stderr once it listens. */
function devToolsEndpoint(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => finish(new BrowserError('BROWSER_UNAVAILABLE', `the browser did not open its DevTools endpoint within ${timeoutMs} ms${tail(output)}`)), timeoutMs);
    const finish = (result: string | Error): void => {
      clearTimeout(timer);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
      if (typeof result === 'string') resolve(result);
      else reject(result);
    };
    const onData = (chunk: Buffer): void => {
      output = (output + chunk.toString('utf8')).slice(-8192);
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(output);
      if (match) finish(match[1]!);
    };
    const onExit = (code: number | null, signal: string | null): void => finish(new BrowserError('BROWSER_UNAVAILABLE', `the browser exited at start (code ${code}, signal ${signal})${tail(output)}`));
    const onError = (error: Error): void => finish(new BrowserError('BROWSER_UNAVAILABLE', `could not start the browser: ${error.message}`, { cause: error }));
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

function tail(output: string): string {
  const lines = output.trim().split('\n').slice(-3).join(' | ');
  return lines ? `: ${lines.slice(0, 500)}` : '';
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
