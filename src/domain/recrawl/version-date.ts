/**
 * What a response's Last-Modified says about the version fetched (docs/design.md, "Change model": validators are a cheap
 * signal, but only where the site keeps them honestly; track per site whether they can be trusted).
 * A truthful Last-Modified dates the latest change: a changed visit then tells when the page
 * changed, not only that it did, which is what lets the rate estimate see past the revisit
 * interval (estimateChangeRate, ChangeObservation.versionAgeDays).
 */
import { parseHttpDate } from '../politeness/index.js';
import { requireNumber } from './errors.js';

const MS_PER_DAY = 86_400_000;

/** A response's dating headers, as received (HTTP-dates); either may be missing. */
export interface VersionDateHeaders {
  lastModified?: string | null;
  /** The response's Date: ages are measured on the server's clock when it sends one, so clock skew cancels. */
  date?: string | null;
}

/** The version's age at the visit, in ms, on the server's clock when it sent Date; undefined without a usable Last-Modified. */
export function versionAgeMs(headers: VersionDateHeaders, observedAtMs: number): number | undefined {
  requireNumber('RECRAWL_DAYS_INVALID', 'observedAtMs', observedAtMs, { min: 0 });
  const lastModifiedMs = headers.lastModified ? parseHttpDate(headers.lastModified, observedAtMs) : undefined;
  if (lastModifiedMs === undefined) return undefined;
  const dateMs = headers.date ? parseHttpDate(headers.date, observedAtMs) : undefined;
  return (dateMs ?? observedAtMs) - lastModifiedMs;
}

/** Tolerance of {@link checkVersionAge}. */
export interface VersionAgeCheckOptions {
  /** HTTP-dates have whole seconds: an age within this of the interval fits either verdict. Default 1_000. */
  resolutionMs: number;
}

export const DEFAULT_VERSION_AGE_CHECK_OPTIONS: Readonly<VersionAgeCheckOptions> = Object.freeze({ resolutionMs: 1_000 });

/** A visit's Last-Modified against its verdict. */
export interface VersionAgeCheck {
  /** Whether the date agrees with what the content showed; undefined when it cannot be checked. */
  consistent: boolean | undefined;
  /** For a changed visit whose date agrees: days from the change to the visit (at most the interval). */
  versionAgeDays?: number;
}

/**
 * Checks a compared visit's version age against its verdict. A changed page must carry a date
 * after the previous visit (age below the interval), an unchanged one a date before it (age at
 * least the interval); a date in the future is wrong either way. A server that stamps every
 * response with the current time, or never moves its date, is caught by its first visit of the
 * other kind.
 */
export function checkVersionAge(
  verdict: 'changed' | 'unchanged',
  intervalDays: number,
  ageMs: number | undefined,
  options: Partial<VersionAgeCheckOptions> = {},
): VersionAgeCheck {
  const { resolutionMs } = { ...DEFAULT_VERSION_AGE_CHECK_OPTIONS, ...options };
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.resolutionMs', resolutionMs, { min: 0 });
  requireNumber('RECRAWL_DAYS_INVALID', 'intervalDays', intervalDays, { min: 0, minExclusive: true });
  if (ageMs === undefined || !Number.isFinite(ageMs)) return { consistent: undefined };
  const intervalMs = intervalDays * MS_PER_DAY;
  if (ageMs < -resolutionMs) return { consistent: false };
  if (verdict === 'unchanged') return { consistent: ageMs >= intervalMs - resolutionMs };
  if (ageMs > intervalMs + resolutionMs) return { consistent: false };
  return { consistent: true, versionAgeDays: Math.min(intervalDays, Math.max(0, ageMs) / MS_PER_DAY) };
}

/** A URL's record of Last-Modified checks. */
export interface VersionDateTrustRecord {
  confirmed: number;
  refuted: number;
}

/** Share of a URL's checks that must have held for its dates to be used. Default 0.8 (as cheap signals'). */
export const MIN_VERSION_DATE_ACCURACY = 0.8;

/**
 * Whether a URL's Last-Modified dates its versions: at least one check held and at least
 * MIN_VERSION_DATE_ACCURACY of them did. Each URL earns it on its own (pages of one site may be
 * static files and generated pages), from its first compared visit.
 */
export function versionDatesTrusted(record: VersionDateTrustRecord): boolean {
  requireNumber('RECRAWL_OBSERVATION_INVALID', 'record.confirmed', record.confirmed, { min: 0, integer: true });
  requireNumber('RECRAWL_OBSERVATION_INVALID', 'record.refuted', record.refuted, { min: 0, integer: true });
  return record.confirmed >= 1 && record.confirmed >= MIN_VERSION_DATE_ACCURACY * (record.confirmed + record.refuted);
}
