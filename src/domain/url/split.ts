import { UrlRejectedError } from './errors.js';
import { findUserinfo, parserView } from './redact.js';
import { hasLoneSurrogate } from '../hash/utf8.js';

/** An absolute http(s) URL cut into its raw parts; nothing is normalized yet. */
export interface RawUrlParts {
  scheme: 'http' | 'https';
  /** Text between `//` and the first '/', '\', '?' or '#'. */
  authority: string;
  /** Raw path, backslashes already turned into slashes; may be empty. */
  path: string;
  /** Raw query without '?', or undefined when there is no '?' before the fragment. */
  query: string | undefined;
}

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
// C0 controls, DEL and C1 controls: never part of a URL we send.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const EDGE_WHITESPACE = /^[\t\n\f\r ]+|[\t\n\f\r ]+$/g;

/**
 * Cuts `input` into scheme, authority, path and query, rejecting credentials first, before any
 * other check can echo them. The fragment is dropped here: it never goes on the wire, and a '?'
 * after '#' belongs to the fragment (docs/design.md, "URL identity").
 * @param maxInputChars inputs longer than this are refused before any further work.
 * @throws UrlRejectedError
 */
export function splitAbsoluteUrl(input: string, maxInputChars: number): RawUrlParts {
  const text = input.replace(EDGE_WHITESPACE, '');
  if (text === '') throw new UrlRejectedError('empty', input);
  // Tabs and newlines inside would be dropped by a WHATWG parser, so look at that view too.
  if (findUserinfo(text) || findUserinfo(parserView(text))) {
    throw new UrlRejectedError('userinfo', input, 'the URL carries a user name or password');
  }
  if (text.length > maxInputChars) throw new UrlRejectedError('too-long', input, `${text.length} characters`);
  if (CONTROL.test(text) || hasLoneSurrogate(text)) {
    throw new UrlRejectedError('invalid-characters', input, 'control character or unpaired surrogate');
  }
  const scheme = SCHEME.exec(text);
  if (!scheme) throw new UrlRejectedError('malformed', input, 'no scheme');
  const name = (scheme[1] as string).toLowerCase();
  if (name !== 'http' && name !== 'https') throw new UrlRejectedError('unsupported-scheme', input, `scheme "${name}"`);

  let cursor = scheme[0].length;
  const slashStart = cursor;
  while (cursor < text.length && (text[cursor] === '/' || text[cursor] === '\\')) cursor++;
  if (cursor - slashStart !== 2) throw new UrlRejectedError('malformed', input, 'expected exactly two slashes after the scheme');

  let authorityEnd = cursor;
  while (authorityEnd < text.length && !'/\\?#'.includes(text[authorityEnd] as string)) authorityEnd++;
  const authority = text.slice(cursor, authorityEnd);

  const hash = text.indexOf('#', authorityEnd);
  const beforeFragment = hash < 0 ? text.slice(authorityEnd) : text.slice(authorityEnd, hash);
  const question = beforeFragment.indexOf('?');
  const rawPath = question < 0 ? beforeFragment : beforeFragment.slice(0, question);
  return {
    scheme: name,
    authority,
    // Browsers and WHATWG clients treat '\' as '/' in http(s) paths, and request it that way.
    path: rawPath.replace(/\\/g, '/'),
    query: question < 0 ? undefined : beforeFragment.slice(question + 1),
  };
}
