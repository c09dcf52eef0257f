/**
 * `path` with `.` and `..` segments removed (RFC 3986 §5.2.4), for a path that starts with '/'
 * or is empty. A trailing `.` or `..` leaves a trailing slash (`/a/b/..` → `/a/`), and `..`
 * never climbs above the root, matching what browsers request.
 */
export function removeDotSegments(path: string): string {
  if (!path.includes('.')) return path;
  const segments = path.split('/');
  const output: string[] = [];
  for (let i = 1; i < segments.length; i++) {
    const segment = segments[i] as string;
    const last = i === segments.length - 1;
    if (segment === '.' || segment === '..') {
      if (segment === '..') output.pop();
      if (last) output.push('');
    } else {
      output.push(segment);
    }
  }
  return `/${output.join('/')}`;
}
