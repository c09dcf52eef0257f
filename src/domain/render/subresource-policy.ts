import { RenderInputError } from './errors.js';

/**
 * What the browser asks for while it renders a page, as Playwright names a request's resource
 * type. `ping` covers beacons (`navigator.sendBeacon`, `<a ping>`).
 */
export type SubresourceType =
  | 'document'
  | 'stylesheet'
  | 'image'
  | 'media'
  | 'font'
  | 'script'
  | 'texttrack'
  | 'xhr'
  | 'fetch'
  | 'eventsource'
  | 'websocket'
  | 'manifest'
  | 'ping'
  | 'other';

/**
 * Blocked by default: what a render does not need to build the page's text and links (images,
 * media, fonts), what only reports on us (beacons), and connections that never end (event
 * streams, websockets: a request held open would hold the host's turn).
 */
export const DEFAULT_BLOCKED_SUBRESOURCE_TYPES: readonly SubresourceType[] = ['image', 'media', 'font', 'ping', 'texttrack', 'manifest', 'eventsource', 'websocket'];

/** The normalized type of a request, from the browser's name for it; unknown names are 'other'. */
export function subresourceTypeOf(browserType: string): SubresourceType {
  const known: readonly string[] = ['document', 'stylesheet', 'image', 'media', 'font', 'script', 'texttrack', 'xhr', 'fetch', 'eventsource', 'websocket', 'manifest', 'ping', 'other'];
  if (browserType === 'beacon') return 'ping';
  return (known.includes(browserType) ? browserType : 'other') as SubresourceType;
}

export interface SubresourcePolicy {
  /** Resource types never requested. Default DEFAULT_BLOCKED_SUBRESOURCE_TYPES. */
  blockedTypes: readonly SubresourceType[];
  /**
   * Origins besides the page's own that subresources may come from (`https://cdn.example.com`),
   * each counted against its own host's politeness. Default none: third-party requests are refused.
   */
  allowedOrigins: readonly string[];
}

export const DEFAULT_SUBRESOURCE_POLICY: Readonly<SubresourcePolicy> = Object.freeze({ blockedTypes: DEFAULT_BLOCKED_SUBRESOURCE_TYPES, allowedOrigins: [] });

/** What happens to one request of the browser before any robots.txt or politeness check. */
export type SubresourceVerdict =
  /** The page itself: answered from the body the crawl already fetched. */
  | { kind: 'main-document' }
  | { kind: 'allowed'; origin: string; host: string; sameHost: boolean }
  /** Not http(s) (data:, blob: are the browser's own and never reach the gate; others are refused). */
  | { kind: 'blocked-scheme' }
  | { kind: 'blocked-type'; type: SubresourceType }
  /** An origin not the page's and not allowed by --render-allow-origin. */
  | { kind: 'blocked-origin'; origin: string };

export interface SubresourceRequest {
  url: string;
  method: string;
  type: SubresourceType;
  /** The browser's top-level navigation to the page (not a frame's, not a later one). */
  isMainDocument: boolean;
}

/**
 * The gate's first question about a request: the main document, or a subresource that may be
 * requested (then robots.txt and politeness decide when), or refused and why. Only GET and HEAD
 * go out: a render reads pages, it does not submit forms.
 */
export function classifySubresource(request: SubresourceRequest, pageUrl: string, policy: SubresourcePolicy = DEFAULT_SUBRESOURCE_POLICY): SubresourceVerdict {
  if (request.isMainDocument) return { kind: 'main-document' };
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return { kind: 'blocked-scheme' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { kind: 'blocked-scheme' };
  if (policy.blockedTypes.includes(request.type)) return { kind: 'blocked-type', type: request.type };
  if (request.method !== 'GET' && request.method !== 'HEAD') return { kind: 'blocked-type', type: request.type };
  const page = new URL(pageUrl);
  const origin = url.origin;
  const host = url.hostname;
  if (origin === page.origin) return { kind: 'allowed', origin, host, sameHost: true };
  if (!policy.allowedOrigins.includes(origin)) return { kind: 'blocked-origin', origin };
  return { kind: 'allowed', origin, host, sameHost: host === page.hostname };
}

/** An --render-allow-origin value as stored: the URL's origin (scheme, host, port). Throws RENDER_ORIGIN_INVALID. */
export function normalizeAllowedOrigin(value: string, field: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new RenderInputError('RENDER_ORIGIN_INVALID', field, value, 'give an origin such as https://cdn.example.com');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '') {
    throw new RenderInputError('RENDER_ORIGIN_INVALID', field, value, 'give an http(s) origin without credentials, such as https://cdn.example.com');
  }
  return url.origin;
}
