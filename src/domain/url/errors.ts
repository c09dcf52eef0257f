import { jsonLine } from '../text/index.js';
import { loggableUrl } from './redact.js';

/** Why a URL was refused. Stable: match on these, never on messages. */
export type UrlRejectionCode =
  | 'empty'
  | 'malformed'
  | 'unsupported-scheme'
  | 'userinfo'
  | 'invalid-host'
  | 'invalid-port'
  | 'too-long'
  | 'invalid-characters';

const WHAT_TO_DO: Record<UrlRejectionCode, string> = {
  empty: 'the URL is empty; drop the link',
  malformed: 'expected an absolute URL of the form http(s)://host/path; drop the link or resolve it against its page first',
  'unsupported-scheme': 'only http and https are crawled; drop the link',
  userinfo:
    'URLs carrying a user or password are never crawled; model authenticated fetches as a credential reference in the fetch policy, not in the URL',
  'invalid-host': 'the host is not a valid domain name, IPv4 address or bracketed IPv6 address; drop the link',
  'invalid-port': 'the port must be a decimal number from 1 to 65535; drop the link',
  'too-long': 'the URL exceeds the configured maximum length (CanonicalizeOptions.maxUrlLength); drop it or raise the limit',
  'invalid-characters': 'the URL contains control characters or unpaired UTF-16 surrogates; drop the link',
};

/**
 * An untrusted URL that the crawler refuses. The only error canonicalization throws; the
 * crawler records it and drops the URL, never retries it. Neither the message nor
 * `redactedInput` ever contains userinfo.
 */
export class UrlRejectedError extends Error {
  override readonly name = 'UrlRejectedError';
  /** Input for logs: userinfo replaced by `***`, control characters escaped, truncated. */
  readonly redactedInput: string;

  /**
   * @param code stable reason.
   * @param input the raw input; only its redacted form is kept.
   * @param detail what exactly is wrong, without any part of the userinfo.
   */
  constructor(
    readonly code: UrlRejectionCode,
    input: string,
    detail?: string,
  ) {
    const redactedInput = loggableUrl(input);
    super(`URL rejected (${code})${detail ? `: ${detail}` : ''}: ${jsonLine(redactedInput)}; ${WHAT_TO_DO[code]}`);
    this.redactedInput = redactedInput;
  }
}
