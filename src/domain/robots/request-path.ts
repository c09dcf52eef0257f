import { canonicalOctets } from './percent-encoding.js';

/**
 * The canonical path-and-query a rule is matched against. A fragment is dropped (it is never
 * sent); an absolute URL is reduced to its path and query; an empty or relative value gets a
 * leading `/`.
 */
export function canonicalRequestPath(pathAndQuery: string): string {
  const hash = pathAndQuery.indexOf('#');
  let target = hash >= 0 ? pathAndQuery.slice(0, hash) : pathAndQuery;
  if (!target.startsWith('/')) {
    const origin = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?]*/.exec(target);
    if (origin !== null) target = target.slice(origin[0].length);
    if (!target.startsWith('/')) target = `/${target}`;
  }
  return canonicalOctets(target);
}

/** RFC 9309 §2.2.2: `/robots.txt` is implicitly allowed, whatever the rules or the policy say. */
export function isRobotsTxtPath(canonicalPath: string): boolean {
  const query = canonicalPath.indexOf('?');
  return (query >= 0 ? canonicalPath.slice(0, query) : canonicalPath) === '/robots.txt';
}
