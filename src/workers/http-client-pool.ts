import { HttpClient } from '../http/index.js';

/**
 * One HttpClient per (User-Agent, private-network policy): each keeps its own keep-alive pool and
 * DNS cache, and crawls with different identities must not share a connection's headers.
 */
export class HttpClientPool {
  private readonly clients = new Map<string, HttpClient>();

  get(options: { userAgent: string; allowPrivateNetworks: boolean }): HttpClient {
    const key = `${options.allowPrivateNetworks ? 'private' : 'public'}\n${options.userAgent}`;
    let client = this.clients.get(key);
    if (!client) {
      client = new HttpClient({ userAgent: options.userAgent, allowPrivateNetworks: options.allowPrivateNetworks });
      this.clients.set(key, client);
    }
    return client;
  }

  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.clients.values()].map((client) => client.close()));
    this.clients.clear();
  }
}
