// The X-Robots-Tag response header reaches the parse: the fetch result carries it (the parse no
// longer reads the fetch record for it), so a header `nofollow` keeps a page's links out of the
// frontier and `noindex` is recorded on the document. Real stack; the server's log says what was
// fetched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { urlFingerprint } from '../../src/domain/url/index.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { renderHtmlPage, startTestWeb, type PageSpec, type TestWeb, type WebSpec } from '../support/test-web/index.js';

const HOST = '127.69.0.1';

const page = (path: string, links: string[], headers?: Record<string, string>): PageSpec => ({
  path,
  body: renderHtmlPage({
    title: `Page ${path}`,
    links: links.map((href) => ({ href, text: `to ${href}` })),
    paragraphs: [`This is ${path}, with words of its own: ${path.split('').reverse().join(' ')}.`],
  }),
  ...(headers ? { headers } : {}),
});

const spec: WebSpec = {
  hosts: [
    {
      host: HOST,
      robotsTxt: 'User-agent: *\nAllow: /\n',
      pages: [
        page('/', ['/nofollow', '/noindex', '/plain']),
        page('/nofollow', ['/behind-nofollow'], { 'X-Robots-Tag': 'nofollow' }),
        page('/noindex', ['/behind-noindex'], { 'X-Robots-Tag': 'noindex' }),
        page('/plain', []),
        page('/behind-nofollow', []),
        page('/behind-noindex', []),
      ],
    },
  ],
};

describe('X-Robots-Tag', () => {
  const crawlId = 'x-robots-tag';
  let harness: Harness;
  let web: TestWeb;

  beforeAll(async () => {
    web = await startTestWeb(spec);
    harness = await createHarness('x-robots-tag');
    await harness.startWorker();
    const summary = await harness.runCrawl({ crawlId, seeds: [web.url(HOST, '/')], config: { minHostDelayMs: 20, maxPages: 50 } });
    expect(summary.state).toBe('finished');
  }, 120_000);

  afterAll(async () => {
    await harness?.close();
    await web?.close();
  });

  const documentOf = async (path: string) =>
    (
      await harness.pool.query<{ x_robots_tag: string | null; noindex: boolean; nofollow: boolean; links_registered: number }>(
        'SELECT x_robots_tag, noindex, nofollow, links_registered FROM documents WHERE fingerprint = $1',
        [Buffer.from(urlFingerprint(web.url(HOST, path)), 'hex')],
      )
    ).rows[0];

  it('follows no link of a page whose header says nofollow, and records the header', async () => {
    const fetched = web.log().map((entry) => entry.path);
    expect(fetched).toContain('/nofollow');
    expect(fetched).not.toContain('/behind-nofollow');
    expect(await documentOf('/nofollow')).toEqual({ x_robots_tag: 'nofollow', noindex: false, nofollow: true, links_registered: 0 });
  });

  it('still follows the links of a noindex page, and marks its document noindex', async () => {
    expect(web.log().map((entry) => entry.path)).toContain('/behind-noindex');
    expect(await documentOf('/noindex')).toMatchObject({ x_robots_tag: 'noindex', noindex: true, nofollow: false });
    expect(await documentOf('/plain')).toMatchObject({ x_robots_tag: null, noindex: false, nofollow: false });
  });
});
