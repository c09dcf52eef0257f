/**
 * GET /robots.txt of one origin: redirects followed up to RFC 9309's limit, a conditional request
 * when validators are held, the body cut at what the parser reads without the line the cut went
 * through.
 */
import { conditionalHeadersOf } from '../../domain/fetching/index.js';
import { DEFAULT_ROBOTS_MAX_BYTES, MAX_ROBOTS_REDIRECTS, robotsFetchOutcomeOf, type RobotsCacheEntry, type RobotsFetchOutcome } from '../../domain/robots/index.js';
import { classifyTransportError, type FetchFailureType } from '../../domain/failures/index.js';
import { hostDownloadMs } from '../../domain/politeness/index.js';
import { decideRedirect, urlFingerprint } from '../../domain/url/index.js';
import { HttpFetchError, type FetchResponseHead, type HttpClient } from '../../http/index.js';
import type { RobotsRequestRecord } from '../../storage/postgres/cost-repository.js';

/**
 * Bytes of robots.txt we keep: what the parser reads (512 KiB; RFC 9309 §2.5 asks for at least
 * 500 KiB) and one more, so that it sees whether its limit cuts a line and drops that line.
 */
const ROBOTS_KEEP_BYTES = DEFAULT_ROBOTS_MAX_BYTES + 1;
/**
 * Wire (and decoded) bytes a robots.txt response may have. Every body is cut at ROBOTS_KEEP_BYTES
 * decoded, so this only bounds one that decodes to little (compressed padding); a larger declared
 * Content-Length is refused unread, and then the host is unreachable.
 */
const ROBOTS_MAX_WIRE_BYTES = 64 * 1024 * 1024;

/** Thrown by the body sink once it holds ROBOTS_KEEP_BYTES: ends the transfer, and the refresh obeys what it has. */
class RobotsCapReached extends Error {
  override readonly name = 'RobotsCapReached';
}

/** `body` without the line the transfer cut through: half a rule could widen an Allow. */
function wholeLines(body: Buffer): Buffer {
  const lastBreak = Math.max(body.lastIndexOf(0x0a), body.lastIndexOf(0x0d));
  return body.subarray(0, lastBreak + 1);
}

export interface RobotsResponse {
  outcome: RobotsFetchOutcome;
  headers: { cacheControl?: string; expires?: string; etag?: string; lastModified?: string } | undefined;
  status: number | undefined;
  /** Set when the request failed below HTTP: a TLS or DNS failure holds the whole host, not only its robots.txt. */
  transportFailure?: FetchFailureType;
  /** The last response's download time, ms (request to last byte). */
  responseMs?: number;
  /** Every request sent, a redirect hop each, with its bytes on the wire: what the refresh costs its crawl. */
  requests: RobotsRequestRecord[];
}

/** GET /robots.txt, following at most five redirects (RFC 9309 §2.3.1.2); conditional when we hold validators. */
export async function fetchRobots(http: HttpClient, origin: string, cached: RobotsCacheEntry | undefined): Promise<RobotsResponse> {
  let url = `${origin}/robots.txt`;
  const chain: string[] = [urlFingerprint(url)];
  const requests: RobotsRequestRecord[] = [];
  for (let hop = 0; hop <= MAX_ROBOTS_REDIRECTS; hop += 1) {
    const conditional = hop === 0 && cached?.lastGoodRules ? conditionalHeadersOf(cached, false) : {};
    const chunks: Uint8Array[] = [];
    let kept = 0;
    let cut = false;
    let head: FetchResponseHead | undefined;
    let responseMs: number | undefined;
    try {
      const response = await http.fetch(
        {
          url,
          headers: { ...conditional, accept: 'text/plain,*/*;q=0.5' },
          maxBodyBytes: ROBOTS_MAX_WIRE_BYTES,
          maxDecompressedBytes: ROBOTS_MAX_WIRE_BYTES,
          firstByteTimeoutMs: 20_000,
          bodyTimeoutMs: 30_000,
        },
        (responseHead) => {
          head = responseHead;
          const obeyed = responseHead.status >= 200 && responseHead.status < 300;
          return {
            write(chunk) {
              // Keep what the parser reads (only a 2xx body is ever read), then stop the transfer.
              const slice = chunk.subarray(0, ROBOTS_KEEP_BYTES - kept);
              if (obeyed) chunks.push(slice);
              kept += slice.length;
              if (kept >= ROBOTS_KEEP_BYTES) throw new RobotsCapReached(`robots.txt response over ${DEFAULT_ROBOTS_MAX_BYTES} bytes`);
            },
            end() {},
            abort() {},
          };
        },
      );
      responseMs = hostDownloadMs(response.body);
      requests.push({ hop, status: response.head.status, ...response.transfer });
    } catch (error) {
      // Over the keep limit (or, with padding that decodes to nothing, the wire bound first): a huge
      // robots.txt is obeyed for its first 512 KiB (RFC 9309 §2.5), without the line the cut went through.
      const overCap = error instanceof RobotsCapReached || (error instanceof HttpFetchError && (error.code === 'HTTP_BODY_TOO_LARGE' || error.code === 'HTTP_DECOMPRESSED_TOO_LARGE') && kept > 0);
      // A failed or cut request is charged what crossed before it ended; only a cut one was answered.
      const transfer = error instanceof HttpFetchError ? error.transfer : undefined;
      if (transfer !== undefined) requests.push({ hop, ...(overCap && head !== undefined ? { status: head.status } : {}), ...transfer });
      if (!overCap || head === undefined) {
        // A transport failure means unreachable (disallow all); anything else is our bug: fail loudly.
        if (!(error instanceof HttpFetchError)) throw error;
        return { outcome: { kind: 'unreachable', reason: error.code }, headers: undefined, status: undefined, transportFailure: classifyTransportError(error.code), requests };
      }
      cut = true;
    }
    if (head === undefined) throw new Error(`fetch of ${url} resolved without a response head`);
    const status = head.status;
    const headers = validatorsOf(head);
    if ([301, 302, 303, 307, 308].includes(status)) {
      const decision = decideRedirect({ location: head.headers['location'], fromUrl: url, chainFingerprints: chain });
      if (decision.kind !== 'follow') {
        return { outcome: { kind: 'unreachable', reason: `robots.txt redirect ${decision.kind}` }, headers, status, ...(responseMs === undefined ? {} : { responseMs }), requests };
      }
      chain.push(decision.fingerprint);
      url = decision.target.url;
      continue;
    }
    const body = Buffer.concat(chunks);
    return { outcome: robotsFetchOutcomeOf(status, cut ? wholeLines(body) : body), headers, status, ...(responseMs === undefined ? {} : { responseMs }), requests };
  }
  return { outcome: { kind: 'unreachable', reason: `more than ${MAX_ROBOTS_REDIRECTS} redirects` }, headers: undefined, status: undefined, requests };
}

/** The caching and validator headers of a robots.txt response. */
function validatorsOf(head: FetchResponseHead): NonNullable<RobotsResponse['headers']> {
  return {
    cacheControl: head.headers['cache-control'],
    expires: head.headers['expires'],
    etag: head.headers['etag'],
    lastModified: head.headers['last-modified'],
  };
}
