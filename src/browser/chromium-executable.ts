import { accessSync, constants, statSync } from 'node:fs';

/**
 * Where Debian's `chromium` package puts the browser binary. /usr/bin/chromium is a shell script
 * that adds flags from /etc/chromium.d and can exec a debugger: the renderer launches the binary
 * itself, with its own flags, so that the process it starts is the browser and its process group
 * is the browser's.
 */
export const DEBIAN_CHROMIUM_PATH = '/usr/lib/chromium/chromium';

/** Overrides where the browser binary is (a Chromium 156 build, as playwright-core 1.64 drives). */
export const CHROMIUM_PATH_ENV = 'CRAWLER_CHROMIUM_PATH';

export type ChromiumLookup = { found: true; executablePath: string } | { found: false; reason: string };

/**
 * The browser binary to launch: $CRAWLER_CHROMIUM_PATH, else Debian's. Nothing is ever downloaded:
 * a machine without the package renders nothing, and says why.
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env): ChromiumLookup {
  const configured = env[CHROMIUM_PATH_ENV]?.trim();
  const executablePath = configured || DEBIAN_CHROMIUM_PATH;
  try {
    if (!statSync(executablePath).isFile()) return { found: false, reason: `${executablePath} is not a file` };
    accessSync(executablePath, constants.X_OK);
  } catch {
    return {
      found: false,
      reason: configured
        ? `${CHROMIUM_PATH_ENV}=${executablePath} is not an executable file`
        : `no browser at ${executablePath}: install Debian's chromium package (apt-get install chromium) or set ${CHROMIUM_PATH_ENV}`,
    };
  }
  return { found: true, executablePath };
}
