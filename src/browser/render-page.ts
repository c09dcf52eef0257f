import type { Browser, BrowserContext, Page, Request, Route } from 'playwright-core';
import { BrowserError } from './errors.js';

/** One request the browser makes while it renders, as the route handler sees it. */
export interface BrowserRequest {
  url: string;
  method: string;
  /** Playwright's resource type: document, script, stylesheet, image, xhr, fetch, ... */
  resourceType: string;
  /** The render's own navigation to the page: answered from the body the crawl already has. */
  isMainDocument: boolean;
}

/** What the handler answers: a response it obtained (through the crawler's gate), or a refusal. */
export type BrowserAnswer =
  | { kind: 'fulfil'; status: number; headers: Record<string, string>; body: Buffer }
  | { kind: 'abort'; errorCode: 'blockedbyclient' | 'accessdenied' | 'failed' | 'timedout' | 'connectionrefused' | 'namenotresolved' };

/**
 * Answers every request of a render. It never lets one through to the browser's network stack
 * (which leads nowhere: browser-process.ts), and it follows redirects itself, so that every hop
 * meets robots.txt and politeness (a route only sees a redirect's first URL).
 */
export type RequestHandler = (request: BrowserRequest, signal: AbortSignal) => Promise<BrowserAnswer>;

export interface RenderPageOptions {
  /** Sent by the browser, and by the handler on its behalf. */
  userAgent: string;
  /** The page must reach DOMContentLoaded within this, ms. Default 15,000. */
  navigationTimeoutMs?: number;
  /**
   * After DOMContentLoaded, the longest the page may take to settle, ms: it ends sooner once the
   * load event has fired and no request has been open for quietMs, and never waits longer for a
   * page that keeps a request open (a long poll). Default 3,000.
   */
  settleMs?: number;
  /** Default 500. */
  quietMs?: number;
  /** Default 1280 x 800. */
  viewport?: { width: number; height: number };
}

export const DEFAULT_RENDER_PAGE_OPTIONS = Object.freeze({ navigationTimeoutMs: 15_000, settleMs: 3000, quietMs: 500 });

/** How the render ended: settled, cut at the settle cap (still busy), or past the navigation deadline with a DOM. */
export type RenderEnd = 'quiet' | 'settle-cap' | 'navigation-timeout';

export interface RenderedPage {
  /** The DOM serialized when the render ended. */
  html: string;
  /** The page's address then (a hash route stays; a script's navigation elsewhere was refused). */
  url: string;
  ended: RenderEnd;
  /** From the start to DOMContentLoaded, ms; absent when it never came. */
  domContentLoadedMs?: number;
  totalMs: number;
}

/**
 * Renders `url` in a fresh context of `browser`: every request through `handler`, service workers
 * and websockets blocked, dialogs dismissed, popups closed, downloads refused, later navigations of
 * the page refused. Throws BrowserError 'BROWSER_CRASHED' when the page or the browser dies, and
 * 'BROWSER_RENDER_TIMEOUT' when no DOM could be read in time (the caller then replaces the browser: a page
 * whose script never yields holds its renderer).
 */
export async function renderPage(browser: Browser, url: string, handler: RequestHandler, options: RenderPageOptions, signal?: AbortSignal): Promise<RenderedPage> {
  const navigationTimeoutMs = options.navigationTimeoutMs ?? DEFAULT_RENDER_PAGE_OPTIONS.navigationTimeoutMs;
  const settleMs = options.settleMs ?? DEFAULT_RENDER_PAGE_OPTIONS.settleMs;
  const quietMs = options.quietMs ?? DEFAULT_RENDER_PAGE_OPTIONS.quietMs;
  const startedAt = Date.now();
  const aborts = new AbortController();
  const onCancel = (): void => aborts.abort(signal?.reason);
  signal?.addEventListener('abort', onCancel, { once: true });
  const cancellation = cancelled(aborts.signal);
  cancellation.catch(() => undefined);
  let onDisconnected: (() => void) | undefined;
  let context: BrowserContext | undefined;
  try {
    context = await browser.newContext({
      serviceWorkers: 'block',
      userAgent: options.userAgent,
      acceptDownloads: false,
      viewport: options.viewport ?? { width: 1280, height: 800 },
      javaScriptEnabled: true,
    });
    const page = await context.newPage();
    const traffic = new RequestTraffic();
    let crash: BrowserError | undefined;
    const crashed = new Promise<never>((_, reject) => {
      page.once('crash', () => reject((crash = new BrowserError('BROWSER_CRASHED', `the page's renderer crashed while rendering ${url}`))));
      onDisconnected = () => reject((crash = new BrowserError('BROWSER_CRASHED', `the browser went away while rendering ${url}`)));
      browser.once('disconnected', onDisconnected);
    });
    crashed.catch(() => undefined);
    page.on('dialog', (dialog) => void dialog.dismiss().catch(() => undefined));
    context.on('page', (opened) => {
      if (opened !== page) void opened.close().catch(() => undefined);
    });
    await routeEveryRequest(context, page, handler, traffic, aborts.signal);

    let ended: RenderEnd = 'quiet';
    let domContentLoadedMs: number | undefined;
    let loaded = false;
    page.once('load', () => (loaded = true));
    const navigation = page.goto(url, { waitUntil: 'domcontentloaded', timeout: navigationTimeoutMs }).then(
      () => 'loaded' as const,
      (error: unknown) => (crash ? Promise.reject(crash) : error instanceof Error && error.name === 'TimeoutError' ? ('timed-out' as const) : Promise.reject(error)),
    );
    const reached = await Promise.race([navigation, crashed, cancellation]);
    if (reached === 'timed-out') ended = 'navigation-timeout';
    else {
      domContentLoadedMs = Date.now() - startedAt;
      const settleUntil = Date.now() + settleMs;
      const settled = await Promise.race([traffic.settle({ quietMs, untilMs: settleUntil, loaded: () => loaded }), crashed, cancellation]);
      ended = settled ? 'quiet' : 'settle-cap';
    }
    // A script that never yields holds the page: its DOM cannot be read, and the browser goes.
    const html = await Promise.race([page.content(), crashed, sleep(5000).then(() => undefined)]);
    if (html === undefined) throw new BrowserError('BROWSER_RENDER_TIMEOUT', `the DOM of ${url} could not be read: its scripts do not yield`);
    // page.url() is the main frame's URL after scripts moved it (pushState, location changes).
    const finalUrl = page.url() || url;
    return { html, url: finalUrl, ended, ...(domContentLoadedMs === undefined ? {} : { domContentLoadedMs }), totalMs: Date.now() - startedAt };
  } catch (error) {
    if (error instanceof BrowserError) throw error;
    if (!browser.isConnected()) throw new BrowserError('BROWSER_CRASHED', `the browser went away while rendering ${url}: ${String(error)}`, { cause: error });
    throw error;
  } finally {
    signal?.removeEventListener('abort', onCancel);
    if (onDisconnected) browser.off('disconnected', onDisconnected);
    aborts.abort();
    if (context) await Promise.race([context.close().catch(() => undefined), sleep(3000)]);
  }
}

/**
 * Every request of the context through `handler`, websockets refused; the main frame's first
 * navigation is the main document, any later one (the page navigating itself away) is refused.
 */
async function routeEveryRequest(context: BrowserContext, page: Page, handler: RequestHandler, traffic: RequestTraffic, signal: AbortSignal): Promise<void> {
  let mainDocumentAnswered = false;
  await context.routeWebSocket(/.*/, (socket) => socket.close({ code: 1008, reason: 'refused by the crawler' }));
  await context.route('**/*', async (route: Route, request: Request) => {
    const main = !mainDocumentAnswered && isMainFrameNavigation(request, page);
    if (main) mainDocumentAnswered = true;
    else if (isMainFrameNavigation(request, page)) {
      // The page navigating itself away: the render is of this page.
      await route.abort('blockedbyclient').catch(() => undefined);
      return;
    }
    traffic.opened();
    try {
      const answer = await handler({ url: request.url(), method: request.method(), resourceType: request.resourceType(), isMainDocument: main }, signal);
      if (answer.kind === 'fulfil') await route.fulfill({ status: answer.status, headers: answer.headers, body: answer.body });
      else await route.abort(answer.errorCode);
    } catch {
      await route.abort('failed').catch(() => undefined);
    } finally {
      traffic.closed();
    }
  });
}

function isMainFrameNavigation(request: Request, page: Page): boolean {
  try {
    return request.isNavigationRequest() && request.frame() === page.mainFrame();
  } catch {
    // A request without a frame (a worker's): not a navigation.
    return false;
  }
}

/** Requests the handler is answering, and when the last one closed. */
class RequestTraffic {
  private open = 0;
  private lastChangeAt = Date.now();

  opened(): void {
    this.open += 1;
    this.lastChangeAt = Date.now();
  }
  closed(): void {
    this.open -= 1;
    this.lastChangeAt = Date.now();
  }

  /** True once loaded and quiet for quietMs; false at untilMs. */
  async settle(input: { quietMs: number; untilMs: number; loaded: () => boolean }): Promise<boolean> {
    for (;;) {
      const now = Date.now();
      if (input.loaded() && this.open === 0 && now - this.lastChangeAt >= input.quietMs) return true;
      if (now >= input.untilMs) return false;
      await sleep(Math.min(50, input.untilMs - now));
    }
  }
}

function cancelled(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason instanceof Error ? signal.reason : new Error('render cancelled'));
    signal.addEventListener('abort', () => reject(signal.reason instanceof Error ? signal.reason : new Error('render cancelled')), { once: true });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
