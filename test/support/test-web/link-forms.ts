import { directoryOf, relativeHref } from './html.js';
import { PORT_PLACEHOLDER } from './types.js';

/** The ways a generated page spells a link; each must resolve to the same target URL. */
export type LinkForm = 'relative' | 'relative-dot' | 'root-relative' | 'absolute' | 'absolute-upper-scheme' | 'protocol-relative';

export const SAME_HOST_FORMS: readonly LinkForm[] = ['relative', 'relative-dot', 'root-relative', 'absolute', 'absolute-upper-scheme', 'protocol-relative'];
export const CROSS_HOST_FORMS: readonly LinkForm[] = ['absolute', 'absolute-upper-scheme', 'protocol-relative'];

/** Where a page's relative links resolve from: its own path, or its `<base href>`. */
export interface LinkSource {
  host: string;
  path: string;
  /** A root-relative path or an absolute URL on the same host (port as {@link PORT_PLACEHOLDER}). */
  baseHref?: string;
}

/** `http://host:{port}path`, with the port filled in when served. */
export function absoluteUrl(host: string, path: string, scheme = 'http'): string {
  return `${scheme}://${host}:${PORT_PLACEHOLDER}${path}`;
}

function baseDirectory(source: LinkSource): string {
  if (source.baseHref === undefined) return directoryOf(source.path);
  const base = source.baseHref.startsWith('/') ? source.baseHref : source.baseHref.replace(/^[a-z]+:\/\/[^/]+/i, '');
  return directoryOf(base);
}

/** The href for `target` on `targetHost` written in `form` on `source`; relative forms need the same host. */
export function hrefFor(form: LinkForm, source: LinkSource, targetHost: string, targetPath: string): string {
  const sameHost = source.host === targetHost;
  if (!sameHost && (form === 'relative' || form === 'relative-dot' || form === 'root-relative')) {
    throw new RangeError(`hrefFor: form ${form} cannot reach another host (${source.host} -> ${targetHost})`);
  }
  switch (form) {
    case 'relative':
      return relativeHref(baseDirectory(source), targetPath);
    case 'relative-dot':
      return relativeHref(baseDirectory(source), targetPath, true);
    case 'root-relative':
      return targetPath;
    case 'absolute':
      return absoluteUrl(targetHost, targetPath);
    case 'absolute-upper-scheme':
      return absoluteUrl(targetHost, targetPath, 'HTTP');
    case 'protocol-relative':
      return `//${targetHost}:${PORT_PLACEHOLDER}${targetPath}`;
  }
}
