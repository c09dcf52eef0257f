import type { CrawlProxyConfig } from '../config/crawl-config.js';
import { HttpClient } from '../http/index.js';
import { ProxyCredentials } from '../http/proxy-credentials.js';

/**
 * One HttpClient per (User-Agent, private-network policy, proxies): each keeps its own keep-alive
 * pools and DNS cache, crawls with different identities must not share a connection's headers,
 * and a host's proxy session lives in the client of the crawl's proxy list. The proxies'
 * credentials are this worker's (its environment or file), handed to the clients it makes.
 */
export class HttpClientPool {
  private readonly clients = new Map<string, HttpClient>();

  constructor(private readonly proxyCredentials: ProxyCredentials = ProxyCredentials.none) {}

  get(options: { userAgent: string; allowPrivateNetworks: boolean; proxy?: CrawlProxyConfig }): HttpClient {
    const proxy = options.proxy !== undefined && options.proxy.urls.length > 0 ? options.proxy : undefined;
    const key = `${options.allowPrivateNetworks ? 'private' : 'public'}\n${options.userAgent}\n${proxy === undefined ? 'direct' : `${proxy.sessionRequests} ${proxy.urls.join(' ')}`}`;
    let client = this.clients.get(key);
    if (!client) {
      client = new HttpClient({
        userAgent: options.userAgent,
        allowPrivateNetworks: options.allowPrivateNetworks,
        ...(proxy === undefined ? {} : { proxy: { urls: proxy.urls, sessionRequests: proxy.sessionRequests, credentials: this.proxyCredentials } }),
      });
      this.clients.set(key, client);
    }
    return client;
  }

  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.clients.values()].map((client) => client.close()));
    this.clients.clear();
  }
}
