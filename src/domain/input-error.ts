import { jsonLine } from './text/index.js';

/**
 * The shape every domain module's input error shares: a stable code to match on, the dotted name
 * of the bad input, its value (described briefly, never dumped), and what to do instead. Each
 * module subclasses it with its own name and codes (RecrawlInputError, RobotsError, ...).
 */
export abstract class DomainInputError<Code extends string> extends Error {
  /**
   * @param code stable code for the kind of mistake.
   * @param field dotted name of the bad input, e.g. `options.maxBytes`.
   * @param hint what the caller should do instead.
   */
  constructor(
    readonly code: Code,
    readonly field: string,
    value: unknown,
    hint: string,
  ) {
    super(`${field} = ${describeValue(value)} is invalid: ${hint}`);
  }
}

/** A value short enough for an error message: strings cut at 80 characters, objects by kind. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return jsonLine(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'number' || typeof value === 'boolean' || value === undefined || value === null) return String(value);
  if (Array.isArray(value)) return `array(${value.length})`;
  return typeof value;
}
