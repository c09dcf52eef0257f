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
 * is recorded with its connect time.
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
    connect(connectOptions, (error, socket) => {
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
      recordNewSocket(socket, performance.now() - startedAt);
      callback(null, socket);
    });
  };
}
