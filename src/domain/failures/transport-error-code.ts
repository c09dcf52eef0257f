export const TRANSPORT_ERROR_CODES = [
  'HTTP_DNS_NOT_FOUND',          // NXDOMAIN / ENOTFOUND / no addresses
  'HTTP_DNS_TEMPORARY_FAILURE',  // SERVFAIL / EAI_AGAIN / resolver timeout
  'HTTP_CONNECT_TIMEOUT',        // TCP/TLS connect did not finish in time
  'HTTP_FIRST_BYTE_TIMEOUT',     // connected, no response headers in time
  'HTTP_BODY_TIMEOUT',           // headers arrived, the body stalled or took too long in total
  'HTTP_CONNECTION_REFUSED',     // ECONNREFUSED
  'HTTP_CONNECTION_RESET',       // ECONNRESET, EPIPE, socket closed early, other socket errors
  'HTTP_TLS_CERTIFICATE',        // certificate invalid, expired, self-signed, hostname mismatch: never bypassed
  'HTTP_TLS_HANDSHAKE',          // other TLS failures (protocol, cipher)
  'HTTP_PRIVATE_NETWORK_REFUSED',// resolved or literal address is loopback/private/link-local and private networks are not allowed
  'HTTP_BODY_TOO_LARGE',         // wire body over maxBodyBytes: cut off
  'HTTP_DECOMPRESSED_TOO_LARGE', // decoded body over maxDecompressedBytes (zip bomb): cut off
  'HTTP_BAD_CONTENT_ENCODING',   // corrupt gzip/br/deflate stream
  'HTTP_INVALID_RESPONSE',       // malformed HTTP (bad headers, bad status line)
  'HTTP_PROXY_FAILED',           // the proxy refused or failed the request before the target answered (407, connect refused, a CONNECT not answered 2xx)
] as const;
export type TransportErrorCode = (typeof TRANSPORT_ERROR_CODES)[number];
