// A frontier row for a test to register directly: the URL http://<host>/<path> at depth 1, tier 0.
import { urlFingerprint } from '../../src/domain/url/index.js';
import type { NewFrontierEntry } from '../../src/storage/postgres/frontier-registration.js';

export function frontierEntry(host: string, path: string): NewFrontierEntry {
  const url = `http://${host}/${path}`;
  return { fingerprint: urlFingerprint(url), url, host, origin: `http://${host}`, canonicalizationVersion: 1, depth: 1, priority: 1, tier: 0 };
}
