// Per-crawl scope: which canonical URLs this crawl may register at all. Pure and cheap: every
// extracted link passes through it.

import { getDomain } from 'tldts';
import { canonicalizeUrl, DEFAULT_MAX_URL_LENGTH, type CanonicalUrl } from './canonicalize.js';
import { UrlRejectedError } from './errors.js';
import { PrefixTrie } from './prefix-trie.js';
import { redactUserinfo } from './redact.js';

/**
 * Extensions of binary and media files a text crawl never wants (compared lowercase, without
 * the dot). Content-Type still decides after fetch (isSkippedContentType); this only saves the
 * request.
 */
export const DEFAULT_SKIP_EXTENSIONS: readonly string[] = [
  // images
  'jpg', 'jpeg', 'png', 'gif', 'webp', 'avif', 'bmp', 'ico', 'svg', 'tif', 'tiff', 'heic',
  // audio and video
  'mp3', 'm4a', 'wav', 'ogg', 'oga', 'flac', 'aac', 'mp4', 'm4v', 'webm', 'ogv', 'avi', 'mov', 'wmv', 'flv', 'mkv', 'mpg', 'mpeg',
  // documents, fonts, styles and scripts
  'pdf', 'doc', 'docx', 'xls', 'xlsx', 'ppt', 'pptx', 'odt', 'ods', 'odp', 'woff', 'woff2', 'ttf', 'otf', 'eot', 'css', 'js',
  // archives, packages and executables
  'zip', 'gz', 'tgz', 'bz2', 'xz', '7z', 'rar', 'tar', 'exe', 'msi', 'dmg', 'iso', 'bin', 'apk', 'deb', 'rpm', 'jar',
];

/** How far from its seeds a crawl may wander. */
export interface ScopeOptions {
  /**
   * `same-host`: only the seeds' exact hosts (any scheme or port).
   * `same-registrable-domain`: hosts under a seed's registrable domain, public suffix aware
   * (`a.example.co.uk` and `b.example.co.uk` match; `x.github.io` and `y.github.io` do not).
   * `any`: no host restriction; prefixes and the other filters still apply.
   */
  mode: 'same-host' | 'same-registrable-domain' | 'any';
  /**
   * URL prefixes (`https://host/path`, or `host/path` for both schemes) the crawl is limited
   * to. When non-empty, a URL must fall under an allow prefix that is more specific than any
   * deny prefix it falls under. Default none (no restriction).
   */
  allowPrefixes?: string[];
  /** URL prefixes excluded unless a more specific allow prefix covers the URL. Default none. */
  denyPrefixes?: string[];
  /** File extensions (without dot, any case) never fetched. Default DEFAULT_SKIP_EXTENSIONS. */
  skipExtensions?: string[];
  /** Longest canonical URL in scope, in characters. Default 2048. */
  maxUrlLength?: number;
}

/** Why a URL is out of scope. Stable: match on these. */
export type ScopeRejectionCode = 'host' | 'registrable-domain' | 'deny-prefix' | 'no-allow-prefix' | 'extension' | 'url-length';

export type ScopeDecision = { inScope: true } | { inScope: false; code: ScopeRejectionCode; reason: string };

/** Stable codes for a bad scope config. */
export type ScopeConfigErrorCode = 'SCOPE_INVALID_MODE' | 'SCOPE_INVALID_PREFIX' | 'SCOPE_CONFLICTING_PREFIX' | 'SCOPE_INVALID_EXTENSION' | 'SCOPE_INVALID_MAX_URL_LENGTH';

/** A scope configuration that cannot be used; names the field and the bad value. */
export class ScopeConfigError extends Error {
  override readonly name = 'ScopeConfigError';

  constructor(
    readonly code: ScopeConfigErrorCode,
    readonly field: string,
    message: string,
  ) {
    super(`ScopeOptions.${field}: ${message}`);
  }
}

/** A compiled scope: build once per crawl, check every discovered URL. */
export interface ScopeChecker {
  check(url: CanonicalUrl): ScopeDecision;
}

type PrefixRule = { kind: 'allow' | 'deny'; rule: string };

/**
 * Compiles `options` against the crawl's seed hosts.
 * @param seedHosts hosts of the crawl's seeds, as in CanonicalUrl.host.
 * @throws ScopeConfigError for an unknown mode, a prefix that is not a URL, a prefix both
 * allowed and denied, an empty extension or a non-positive length.
 */
export function createScopeChecker(seedHosts: ReadonlySet<string>, options: ScopeOptions): ScopeChecker {
  const { mode } = options;
  if (mode !== 'same-host' && mode !== 'same-registrable-domain' && mode !== 'any') {
    throw new ScopeConfigError('SCOPE_INVALID_MODE', 'mode', `${JSON.stringify(mode)}; expected same-host, same-registrable-domain or any`);
  }
  const maxUrlLength = options.maxUrlLength ?? DEFAULT_MAX_URL_LENGTH;
  if (!Number.isInteger(maxUrlLength) || maxUrlLength < 1) {
    throw new ScopeConfigError('SCOPE_INVALID_MAX_URL_LENGTH', 'maxUrlLength', `${maxUrlLength}; expected a positive integer`);
  }
  const hosts = new Set([...seedHosts].map((host) => host.toLowerCase()));
  const domains = new Set([...hosts].map(registrableDomain));
  const extensions = new Set(
    (options.skipExtensions ?? DEFAULT_SKIP_EXTENSIONS).map((ext) => {
      const normalized = ext.replace(/^\./, '').toLowerCase();
      if (normalized === '') throw new ScopeConfigError('SCOPE_INVALID_EXTENSION', 'skipExtensions', 'contains an empty extension');
      return normalized;
    }),
  );
  const allowCount = options.allowPrefixes?.length ?? 0;
  const trie = new PrefixTrie<PrefixRule>();
  addPrefixes(trie, 'allow', options.allowPrefixes ?? []);
  addPrefixes(trie, 'deny', options.denyPrefixes ?? []);

  return {
    check(url: CanonicalUrl): ScopeDecision {
      if (url.url.length > maxUrlLength) {
        return out('url-length', `${url.url.length} characters is over the ${maxUrlLength}-character limit`);
      }
      if (mode === 'same-host' && !hosts.has(url.host)) {
        return out('host', `host ${url.host} is not a seed host`);
      }
      if (mode === 'same-registrable-domain' && !domains.has(registrableDomain(url.host))) {
        return out('registrable-domain', `${url.host} is not under a seed's registrable domain (${[...domains].slice(0, 3).join(', ')})`);
      }
      const match = trie.longestMatch(url.url);
      if (match?.value.kind === 'deny') return out('deny-prefix', `matches deny prefix ${match.value.rule}`);
      if (allowCount > 0 && match === undefined) return out('no-allow-prefix', 'matches none of the allow prefixes');
      const extension = pathExtension(url.path);
      if (extension !== undefined && extensions.has(extension)) return out('extension', `.${extension} files are skipped`);
      return { inScope: true };
    },
  };
}

/**
 * Whether `url` is in this crawl's scope. Compiles the options on every call; use
 * createScopeChecker when checking many URLs.
 */
export function checkScope(url: CanonicalUrl, seedHosts: ReadonlySet<string>, options: ScopeOptions): ScopeDecision {
  return createScopeChecker(seedHosts, options).check(url);
}

/** The registrable domain (eTLD+1) of a canonical host; the host itself for IPs and bare suffixes. */
export function registrableDomain(host: string): string {
  if (host.startsWith('[')) return host;
  // Private suffixes (github.io, blogspot.com) separate sites owned by different people.
  return getDomain(host, { allowPrivateDomains: true }) ?? host;
}

function addPrefixes(trie: PrefixTrie<PrefixRule>, kind: 'allow' | 'deny', prefixes: readonly string[]): void {
  const field = kind === 'allow' ? 'allowPrefixes' : 'denyPrefixes';
  for (const rule of prefixes) {
    for (const key of prefixKeys(rule, field)) {
      const existing = trie.get(key);
      if (existing && existing.kind !== kind) {
        throw new ScopeConfigError('SCOPE_CONFLICTING_PREFIX', field, `${rule} is both allowed and denied; keep one`);
      }
      trie.set(key, { kind, rule });
    }
  }
}

/** Canonical URL prefixes for a rule: `host/path` expands to both schemes. */
function prefixKeys(rule: string, field: string): string[] {
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(rule);
  // Any other scheme fails canonicalization below with unsupported-scheme.
  const candidates = hasScheme ? [rule] : [`http://${rule}`, `https://${rule}`];
  return candidates.map((candidate) => {
    try {
      return canonicalizeUrl(candidate).url;
    } catch (error) {
      const code = error instanceof UrlRejectedError ? error.code : 'malformed';
      throw new ScopeConfigError('SCOPE_INVALID_PREFIX', field, `${JSON.stringify(redactUserinfo(rule))} is not a URL prefix (${code}); write https://host/path or host/path`);
    }
  });
}

function pathExtension(path: string): string | undefined {
  const last = path.slice(path.lastIndexOf('/') + 1).split(';')[0] as string;
  const dot = last.lastIndexOf('.');
  return dot < 0 || dot === last.length - 1 ? undefined : last.slice(dot + 1).toLowerCase();
}

function out(code: ScopeRejectionCode, reason: string): ScopeDecision {
  return { inScope: false, code, reason: `${code}: ${reason}` };
}
