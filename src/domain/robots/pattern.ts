import { canonicalOctets } from './percent-encoding.js';

/** A robots path pattern prepared for matching against canonical paths. */
export interface CompiledPattern {
  /** Canonical literal runs between `*` wildcards; the first is anchored at the start of the path. */
  segments: string[];
  /** True when the pattern ended in `$`: the last run must end the path. */
  anchoredAtEnd: boolean;
  /** Octets of the canonical pattern, `*` and `$` counted: the "most octets" of RFC 9309 §2.2.2. */
  octets: number;
}

/**
 * Compiles a pattern as written in robots.txt. Only a final `$` anchors (a `$` elsewhere is a
 * literal dollar sign); every `*` matches any run of characters, `/` included.
 */
export function compilePattern(pattern: string): CompiledPattern {
  const anchoredAtEnd = pattern.endsWith('$');
  const body = anchoredAtEnd ? pattern.slice(0, -1) : pattern;
  const segments = body.split('*').map(canonicalOctets);
  const literalOctets = segments.reduce((sum, segment) => sum + segment.length, 0);
  return { segments, anchoredAtEnd, octets: literalOctets + (segments.length - 1) + (anchoredAtEnd ? 1 : 0) };
}

/**
 * True when `pattern` matches the canonical `path` from its first octet. Runs in
 * O(path × pattern) at worst: each run after the first is placed at its leftmost occurrence,
 * which is always safe for `*`-only globs, so there is no backtracking to exploit.
 */
export function patternMatches(pattern: CompiledPattern, path: string): boolean {
  const { segments, anchoredAtEnd } = pattern;
  const first = segments[0] as string;
  if (segments.length === 1) return anchoredAtEnd ? path === first : path.startsWith(first);
  if (!path.startsWith(first)) return false;
  let position = first.length;
  const lastIndex = segments.length - 1;
  for (let i = 1; i < lastIndex; i++) {
    const segment = segments[i] as string;
    const found = path.indexOf(segment, position);
    if (found < 0) return false;
    position = found + segment.length;
  }
  const last = segments[lastIndex] as string;
  if (anchoredAtEnd) return path.length - last.length >= position && path.endsWith(last);
  return path.indexOf(last, position) >= 0;
}
