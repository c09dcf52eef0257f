export const TRANSPORT_ERROR_CODES = [
  'dns-not-found',          // NXDOMAIN / ENOTFOUND / no addresses
  'dns-temporary-failure',  // SERVFAIL / EAI_AGAIN / resolver timeout
  'connect-timeout',        // TCP/TLS connect did not finish in time
  'first-byte-timeout',     // connected, no response headers in time
  'body-timeout',           // headers arrived, the body stalled or took too long in total
  'connection-refused',     // ECONNREFUSED
  'connection-reset',       // ECONNRESET, EPIPE, socket closed early, other socket errors
  'tls-certificate',        // certificate invalid, expired, self-signed, hostname mismatch: never bypassed
  'tls-handshake',          // other TLS failures (protocol, cipher)
  'private-network-refused',// resolved or literal address is loopback/private/link-local and private networks are not allowed
  'body-too-large',         // wire body over maxBodyBytes: cut off
  'decompressed-too-large', // decoded body over maxDecompressedBytes (zip bomb): cut off
  'bad-content-encoding',   // corrupt gzip/br/deflate stream
  'invalid-response',       // malformed HTTP (bad headers, bad status line)
  'proxy-failed',           // the proxy refused or failed the request before the target answered (407, connect refused, a CONNECT not answered 2xx)
] as const;
export type TransportErrorCode = (typeof TRANSPORT_ERROR_CODES)[number];
