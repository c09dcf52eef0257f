import type { TransportErrorCode } from '../domain/failures/index.js';
import type { TransferBytes } from './socket-facts.js';

/** What was already known when a fetch failed after its response head arrived. */
export interface PartialResponse {
  status?: number;
  headers?: Record<string, string>;
}

/**
 * The only error `HttpClient.fetch` throws for a transport problem. `code` is the shared
 * vocabulary the failure domain maps to a retry policy; HTTP statuses are never errors here.
 */
export class HttpFetchError extends Error {
  override readonly name = 'HttpFetchError';
  readonly code: TransportErrorCode;
  readonly url: string;
  override readonly cause?: unknown;
  readonly partial?: PartialResponse;
  /** Bytes the failed request put on the wire and took off it before it failed (a reset after 30 KB cost 30 KB); absent when no connection was made. */
  readonly transfer?: TransferBytes;

  constructor(code: TransportErrorCode, url: string, options: { cause?: unknown; partial?: PartialResponse; detail?: string; transfer?: TransferBytes } = {}) {
    const detail = options.detail ?? describeCause(options.cause);
    super(`${code} fetching ${url}${detail ? `: ${detail}` : ''}`);
    this.code = code;
    this.url = url;
    if (options.cause !== undefined) this.cause = options.cause;
    if (options.partial !== undefined) this.partial = options.partial;
    if (options.transfer !== undefined) this.transfer = options.transfer;
  }

  /** The same failure, now also saying what the response head was. */
  withPartial(partial: PartialResponse): HttpFetchError {
    return this.copyWith({ partial });
  }

  /** The same failure, now also saying what it cost on the wire. */
  withTransfer(transfer: TransferBytes): HttpFetchError {
    return this.copyWith({ transfer });
  }

  private copyWith(changes: { partial?: PartialResponse; transfer?: TransferBytes }): HttpFetchError {
    const partial = changes.partial ?? this.partial;
    const transfer = changes.transfer ?? this.transfer;
    const copy = new HttpFetchError(this.code, this.url, { cause: this.cause, ...(partial ? { partial } : {}), ...(transfer ? { transfer } : {}) });
    copy.message = this.message;
    if (this.stack !== undefined) copy.stack = this.stack;
    return copy;
  }
}

/** A DNS answer could not be had: the name does not exist, or the resolver failed for now. */
export class DnsLookupError extends Error {
  override readonly name = 'DnsLookupError';
  readonly code: 'HTTP_DNS_NOT_FOUND' | 'HTTP_DNS_TEMPORARY_FAILURE';
  readonly hostname: string;
  override readonly cause?: unknown;

  constructor(code: 'HTTP_DNS_NOT_FOUND' | 'HTTP_DNS_TEMPORARY_FAILURE', hostname: string, cause?: unknown) {
    const what = code === 'HTTP_DNS_NOT_FOUND' ? 'has no address (NXDOMAIN or no A/AAAA records)' : 'could not be resolved right now';
    super(`${hostname} ${what}${cause === undefined ? '' : `: ${describeCause(cause)}`}`);
    this.code = code;
    this.hostname = hostname;
    if (cause !== undefined) this.cause = cause;
  }
}

/** A connection would have gone to a loopback/private/link-local address while those are refused. */
export class PrivateNetworkRefusedError extends Error {
  override readonly name = 'PrivateNetworkRefusedError';
  readonly code = 'HTTP_PRIVATE_NETWORK_REFUSED' as const;
  readonly hostname: string;
  readonly addresses: readonly string[];

  constructor(hostname: string, addresses: readonly string[]) {
    super(
      `refusing to connect to ${hostname} (${addresses.join(', ')}): private, loopback and link-local ` +
        'addresses are refused; set allowPrivateNetworks to crawl them on purpose',
    );
    this.hostname = hostname;
    this.addresses = addresses;
  }
}

export type InvalidFetchRequestCode = 'HTTP_INVALID_URL' | 'HTTP_UNSUPPORTED_SCHEME' | 'HTTP_FORBIDDEN_HEADER' | 'HTTP_INVALID_OPTION' | 'HTTP_CLIENT_CLOSED';

/** The caller asked for something this client will not do: a bug upstream, never worth a retry. */
export class InvalidFetchRequestError extends Error {
  override readonly name = 'InvalidFetchRequestError';
  readonly code: InvalidFetchRequestCode;
  readonly input: string;

  constructor(code: InvalidFetchRequestCode, input: string, message: string) {
    super(message);
    this.code = code;
    this.input = input;
  }
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return typeof code === 'string' ? `${code} ${cause.message}` : cause.message;
  }
  return cause === undefined ? '' : String(cause);
}
