import { isIP, type LookupFunction, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { buildConnector } from 'undici';
import { PrivateNetworkRefusedError } from './errors.js';
import { isPrivateAddress } from './private-address.js';
import { recordNewSocket } from './socket-facts.js';

export interface GuardedConnectorOptions {
  /** When false, literal private addresses are refused before connecting and every socket's peer is checked. */
  allowPrivateNetworks: boolean;
  /** Name resolution for the socket (DnsCache.lookup: cached, and filtering private answers). */
  lookup: LookupFunction;
  /** Ceiling on one connect, DNS + TCP + TLS handshake, ms. */
  connectTimeoutMs: number;
}

/**
 * undici's connector (certificates always verified) with the private-network guard around it:
 * URLs with a literal address never reach connect(), names go through the guarded `lookup`, and
 * the connected peer is checked once more, so nothing resolves around the rule. Each new socket
 * is recorded with its connect time. TLS is set up over a TCP socket of our own, not by
 * tls.connect on its own: a TLS socket counts the bytes it decrypted, and the TCP socket beneath
 * it the bytes on the wire, which is what a request costs (socket-facts.ts).
 */
export function createGuardedConnector(options: GuardedConnectorOptions): buildConnector.connector {
  const connect = buildConnector({
    timeout: options.connectTimeoutMs,
    lookup: options.lookup,
    // Explicit although it is the default: a certificate error is a failure, never a warning.
    rejectUnauthorized: true,
  });

  return (connectOptions, callback) => {
    const startedAt = performance.now();
    const { hostname } = connectOptions;
    if (!options.allowPrivateNetworks && isIP(hostname) !== 0 && isPrivateAddress(hostname)) {
      process.nextTick(() => callback(new PrivateNetworkRefusedError(hostname, [hostname]), null));
      return;
    }
    const tls = connectOptions.protocol === 'https:';
    const tcpOptions = tls ? { ...connectOptions, protocol: 'http:', port: connectOptions.port || '443' } : connectOptions;
    connect(tcpOptions, (error, socket) => {
      if (error !== null) {
        callback(error, null);
        return;
      }
      const peer = (socket as Socket).remoteAddress;
      if (!options.allowPrivateNetworks && (peer === undefined || isPrivateAddress(peer))) {
        socket.destroy();
        callback(new PrivateNetworkRefusedError(hostname, [peer ?? 'unknown peer']), null);
        return;
      }
      if (!tls) {
        recordNewSocket(socket, performance.now() - startedAt);
        callback(null, socket);
        return;
      }
      connect({ ...connectOptions, httpSocket: socket as Socket }, (tlsError, secured) => {
        if (tlsError !== null) {
          socket.destroy();
          callback(tlsError, null);
          return;
        }
        recordNewSocket(secured, performance.now() - startedAt);
        callback(null, secured);
      });
    });
  };
}
