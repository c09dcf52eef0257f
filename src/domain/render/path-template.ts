/**
 * The path template a page's render verdict is kept under: its path with each segment that
 * looks like an identifier (digits, hex, a UUID, a long slug with digits) replaced by `*`, and no
 * query. `/products/42?page=2` and `/products/7` share `/products/*`: pages of one template are
 * built the same way, in the browser or on the server.
 */
export function pathTemplateOf(url: string): string {
  let pathname: string;
  try {
    pathname = new URL(url).pathname;
  } catch {
    return '/';
  }
  const segments = pathname.split('/').map((segment) => (looksLikeIdentifier(segment) ? '*' : segment.slice(0, 64)));
  // Deep paths share a template past a few levels: a verdict per leaf would never be trained.
  const kept = segments.slice(0, MAX_TEMPLATE_SEGMENTS + 1);
  return kept.join('/') + (segments.length > kept.length ? '/**' : '');
}

/** Segments of a template, the leading empty one not counted. */
export const MAX_TEMPLATE_SEGMENTS = 4;

function looksLikeIdentifier(segment: string): boolean {
  if (segment === '') return false;
  const decoded = segment.toLowerCase();
  if (/^\d+$/.test(decoded)) return true;
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(decoded)) return true;
  if (/^[0-9a-f]{12,}$/.test(decoded)) return true;
  // A slug with a number in it, the way articles and products are named (`blue-shirt-1234`, `2024-05-01`).
  if (/\d/.test(decoded) && /^[a-z0-9_.~%-]+$/.test(decoded) && (decoded.length >= 8 || /^\d[\d-]*$/.test(decoded))) return true;
  return false;
}
