export {
  CANONICALIZATION_VERSION,
  DEFAULT_MAX_URL_LENGTH,
  canonicalizeUrl,
  tryCanonicalizeUrl,
  type CanonicalUrl,
  type CanonicalizeOptions,
} from './canonicalize.js';
export { UrlRejectedError, type UrlRejectionCode } from './errors.js';
export { redactCredentials, redactUserinfo } from './redact.js';
export { resolveHref, resolveLink } from './resolve.js';
export { canonicalFromLinkHeader } from './link-header.js';
export {
  QueryPolicySet,
  QueryPolicyConfigError,
  type OriginQueryPolicy,
  type CompiledQueryPolicy,
  type QueryPolicyConfigErrorCode,
} from './query-policy.js';
export { compileQueryPolicies } from './compile-query-policies.js';
export { urlFingerprint, isUrlFingerprint, URL_FINGERPRINT_HEX_LENGTH } from './fingerprint.js';
export { PrefixTrie } from './prefix-trie.js';
export {
  checkScope,
  createScopeChecker,
  registrableDomain,
  DEFAULT_SKIP_EXTENSIONS,
  ScopeConfigError,
  type ScopeOptions,
  type ScopeChecker,
  type ScopeDecision,
  type ScopeRejectionCode,
  type ScopeConfigErrorCode,
} from './scope.js';
export { isSkippedContentType, DEFAULT_ACCEPTED_CONTENT_TYPES, SITEMAP_CONTENT_TYPES } from './content-type.js';
export { decideRedirect, MAX_REDIRECT_HOPS, REDIRECT_STATUSES, type RedirectInput, type RedirectDecision } from './redirect.js';
export {
  assessTrap,
  DEFAULT_SESSION_PARAM_NAMES,
  TrapOptionsError,
  type TrapOptions,
  type TrapContext,
  type TrapReasonCode,
  type TrapReason,
  type TrapAssessment,
} from './traps.js';
export { isPathVariant, pathWithoutParams, withoutSessionParams } from './path-variants.js';
