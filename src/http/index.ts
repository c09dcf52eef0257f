// The HTTP layer: every fetch goes through HttpClient. Node and undici live here, never in the domain.
export { HttpClient } from './http-client.js';
export type { FetchedBody, FetchResponseHead, FetchResult, HttpClientOptions, SinkFactory } from './http-client.js';
export type { FetchRequest } from './fetch-request.js';
export { DEFAULT_ACCEPT } from './fetch-request.js';
export type { BodySink } from './body-reader.js';
export { HttpFetchError, DnsLookupError, PrivateNetworkRefusedError, InvalidFetchRequestError } from './errors.js';
export type { InvalidFetchRequestCode, PartialResponse } from './errors.js';
export { transportErrorCodeOf } from './transport-error-code-of.js';
export { isPrivateAddress } from './private-address.js';
export { DnsCache } from './dns-cache.js';
export type { DnsCacheOptions } from './dns-cache.js';
export { createSystemDnsResolver } from './system-dns-resolver.js';
export type { DnsAddress, DnsAnswer, DnsResolver, SystemDnsResolverOptions } from './system-dns-resolver.js';
export { decodeCharset, charsetParameterOf } from './decode-charset.js';
export type { CharsetSource, DecodedText } from './decode-charset.js';
export { ACCEPT_ENCODING } from './content-decoders.js';
