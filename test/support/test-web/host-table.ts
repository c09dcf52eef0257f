import { TestWebError } from './errors.js';
import { isLoopbackIpv4 } from './loopback.js';
import type { HostSpec, PageSpec, WebSpec } from './types.js';

/** Serving state of one host: its spec, pages by exact target, and request counters. */
export interface HostState {
  spec: HostSpec;
  pages: Map<string, PageSpec>;
  /** Requests per exact target since start or the last `update` (drives 'retry-after', 'fail-times'). */
  targetHits: Map<string, number>;
  /** Requests to this host since start. */
  requests: number;
}

/** Validates a spec's hosts (dotted loopback, no duplicates) and indexes their pages. */
export function buildHostTable(spec: WebSpec): Map<string, HostState> {
  const table = new Map<string, HostState>();
  for (const host of spec.hosts) {
    if (!isLoopbackIpv4(host.host)) {
      throw new TestWebError('TEST_WEB_INVALID_HOST', `test web: host "${host.host}" is not a dotted 127.x.y.z address; use loopbackHosts() to make hosts`);
    }
    if (table.has(host.host)) {
      throw new TestWebError('TEST_WEB_DUPLICATE_HOST', `test web: host ${host.host} appears twice in the spec; merge its pages into one HostSpec`);
    }
    const pages = new Map<string, PageSpec>();
    for (const page of host.pages) {
      if (!page.path.startsWith('/')) {
        throw new TestWebError('TEST_WEB_INVALID_OPTION', `test web: page path "${page.path}" on ${host.host} must start with "/" (it is matched against the raw request target)`);
      }
      pages.set(page.path, page);
    }
    table.set(host.host, { spec: host, pages, targetHits: new Map(), requests: 0 });
  }
  return table;
}

/** The table for `spec` when it replaces `current`: request counts carry over, hosts that left serve nothing. */
export function replaceHostTable(current: Map<string, HostState>, spec: WebSpec): Map<string, HostState> {
  const next = buildHostTable(spec);
  for (const host of next.keys()) {
    if (!current.has(host)) {
      throw new TestWebError('TEST_WEB_UNKNOWN_HOST', `test web update: host ${host} is not listening; start a new web to add hosts`);
    }
  }
  for (const [host, state] of current) {
    const replacement = next.get(host);
    if (replacement) replacement.requests = state.requests;
    else next.set(host, { spec: { host, pages: [] }, pages: new Map(), targetHits: new Map(), requests: state.requests });
  }
  return next;
}
