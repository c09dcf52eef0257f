// Serves a small demo web on loopback (three hosts, a robots.txt that disallows a path, links
// within and across hosts) and runs `crawler crawl` on it. Only loopback is crawled here: the
// crawler refuses private addresses unless --allow-private-networks, which the demo passes.
import { main } from '../src/cli/main.js';
import { generateWeb, startTestWeb } from '../test/support/test-web/index.js';

const generated = generateWeb({ hosts: 3, pagesPerHost: 12, linksPerPage: 4, crossHostLinkRatio: 0.25, seed: 2026, base: '127.60.0.1', robots: 'some-disallow' });
const web = await startTestWeb(generated.spec);
const seeds = generated.seeds(web.port);
process.stderr.write(`demo web: ${generated.hosts.length} hosts on port ${web.port}, seeds ${seeds.join(' ')}\n`);
try {
  process.exitCode = await main(['crawl', ...seeds, '--allow-private-networks', '--scope', 'any', '--min-host-delay-ms', '300', '--max-pages', '200', ...process.argv.slice(2)]);
} finally {
  await web.close();
}
if (process.exitCode === 0) {
  process.stderr.write(
    [
      '',
      'The local stack is still running, so the Temporal UI above still shows the crawl.',
      '  npx crawler status              recent crawls',
      '  npx crawler export --crawl ID   the fetch records',
      '  npx crawler stack down          stop the stack (data stays in .crawler-data/)',
      '',
    ].join('\n'),
  );
}
