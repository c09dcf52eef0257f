/**
 * What a fetch reads about its URL before the request, beside its earlier record: the origin's
 * robots entry and the URL's validators. One column list and one mapping for every statement that
 * selects them (readFetchPreflights, a claim of URLs to fetch), each joining the origin's
 * robots_cache row as `r` and the URL's row as `u`.
 */
import type { RobotsCacheEntry } from '../../domain/robots/index.js';

export interface UrlValidators {
  etag: string | null;
  lastModified: string | null;
}

/** What a fetch reads about its URL before the request; FetchPreflight (fetch-repository.ts) adds its earlier record. */
export interface UrlPreflight {
  /** The origin's robots.txt entry, shared by every worker. */
  robots?: RobotsCacheEntry;
  /** The URL's validators, for a conditional request. */
  validators: UrlValidators;
}

export const PREFLIGHT_COLUMNS_SQL = 'r.entry AS robots_entry, u.etag AS url_etag, u.last_modified AS url_last_modified';

export interface PreflightColumns {
  robots_entry: RobotsCacheEntry | null;
  url_etag: string | null;
  url_last_modified: string | null;
}

export function preflightOfColumns(row: PreflightColumns): UrlPreflight {
  return {
    ...(row.robots_entry === null ? {} : { robots: row.robots_entry }),
    validators: { etag: row.url_etag, lastModified: row.url_last_modified },
  };
}
