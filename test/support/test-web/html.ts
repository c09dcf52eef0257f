/** One `<a>` of a generated page. */
export interface PageLink {
  href: string;
  text: string;
  /** e.g. 'nofollow'. */
  rel?: string;
}

/** Everything a generated HTML page may carry. */
export interface HtmlPageOptions {
  title: string;
  links: readonly PageLink[];
  paragraphs?: readonly string[];
  /** Emitted as `<base href>`; relative links then resolve against it. */
  baseHref?: string;
  /** Content of `<meta name="robots">`, e.g. 'nofollow' or 'noindex'. */
  metaRobots?: string;
  /** Emitted as `<link rel="canonical">`. */
  canonical?: string;
  /** Pads with filler paragraphs to at least this many bytes. Default 0 (no padding). */
  minBytes?: number;
  /** Text for the padding paragraphs, cycled. Default a fixed sentence. */
  filler?: readonly string[];
}

/** A complete, valid HTML document. */
export function renderHtmlPage(options: HtmlPageOptions): string {
  const head = [
    '<meta charset="utf-8">',
    `<title>${escapeHtml(options.title)}</title>`,
    options.baseHref !== undefined ? `<base href="${escapeHtml(options.baseHref)}">` : '',
    options.metaRobots !== undefined ? `<meta name="robots" content="${escapeHtml(options.metaRobots)}">` : '',
    options.canonical !== undefined ? `<link rel="canonical" href="${escapeHtml(options.canonical)}">` : '',
  ].filter((line) => line !== '');
  const links = options.links.map(
    (link) => `<li><a href="${escapeHtml(link.href)}"${link.rel !== undefined ? ` rel="${escapeHtml(link.rel)}"` : ''}>${escapeHtml(link.text)}</a></li>`,
  );
  const paragraphs = (options.paragraphs ?? []).map((text) => `<p>${escapeHtml(text)}</p>`);
  const open = `<!doctype html>\n<html lang="en">\n<head>\n${head.join('\n')}\n</head>\n<body>\n<h1>${escapeHtml(options.title)}</h1>\n${paragraphs.join('\n')}\n<ul>\n${links.join('\n')}\n</ul>\n`;
  const close = '</body>\n</html>\n';
  const minBytes = options.minBytes ?? 0;
  const filler = options.filler ?? ['This paragraph pads the page to the requested size.'];
  let padding = '';
  for (let i = 0; Buffer.byteLength(open) + padding.length + close.length < minBytes; i++) {
    padding += `<p>${escapeHtml(filler[i % filler.length] ?? '')}</p>\n`;
  }
  return open + padding + close;
}

/** The directory part of a path (up to and including its last '/'), query ignored. */
export function directoryOf(pathWithQuery: string): string {
  const path = pathWithQuery.split('?')[0] ?? '';
  return path.slice(0, path.lastIndexOf('/') + 1);
}

/**
 * A relative reference from a document whose base directory is `fromDirectory` to `target`
 * (path + query, both absolute paths): '../x', 'y/z?b=1', './'. Plain ASCII paths only: the
 * generator never puts ':' in a first segment, where it would read as a scheme.
 */
export function relativeHref(fromDirectory: string, target: string, dotPrefix = false): string {
  const queryAt = target.indexOf('?');
  const path = queryAt < 0 ? target : target.slice(0, queryAt);
  const query = queryAt < 0 ? '' : target.slice(queryAt);
  const from = fromDirectory.split('/').filter((s) => s !== '');
  const to = path.split('/').slice(1);
  const last = to.pop() ?? '';
  let common = 0;
  while (common < from.length && common < to.length && from[common] === to[common]) common++;
  const ups = from.length - common;
  const rest = [...to.slice(common), last].join('/');
  if (ups > 0) return '../'.repeat(ups) + rest + query;
  // An empty reference would mean "this document"; './' means this directory.
  if (rest === '') return './' + query;
  return (dotPrefix ? './' : '') + rest + query;
}

export function escapeHtml(text: string): string {
  if (!/[&<>"']/.test(text)) return text;
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}
