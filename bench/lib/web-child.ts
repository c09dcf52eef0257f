// The test web as its own process, so the benchmark can measure its memory apart from the
// crawler's and so the crawler under test never shares an event loop with the server.
// Started by web-process.ts through IPC; answers 'figures', 'clear' and 'close'.
import { docTreesWeb, generateWeb, startTestWeb } from '../../test/support/test-web/index.js';
import { webFigures } from './web-figures.js';
import type { BenchWebOptions, WebChildReady, WebChildReply, WebChildRequest } from './web-process.js';

const options = JSON.parse(process.env['BENCH_WEB_OPTIONS'] ?? '{}') as BenchWebOptions;
const generated = 'docTrees' in options ? docTreesWeb(options.docTrees) : generateWeb(options);
const pages = 'files' in generated ? generated.files : generated.pages.length;
// Listening on thousands of addresses at once: open them in large batches. Past the descriptors a
// process may hold (one a listener), one wildcard listener serves every host.
const WILDCARD_PAST_HOSTS = 10_000;
const listen = generated.spec.hosts.length > WILDCARD_PAST_HOSTS ? 'wildcard' : 'each-address';
const web = await startTestWeb(generated.spec, { listenConcurrency: 512, listen });
const expected = generated.expectedReachable(web.port);
const disallowed = generated.disallowed(web.port);

const send = (message: WebChildReady | WebChildReply): void => void process.send?.(message);

process.on('message', (raw) => {
  const request = raw as WebChildRequest;
  switch (request.type) {
    case 'figures':
      send({ type: 'figures', id: request.id, figures: webFigures(web.log(), request.minDelayMs, expected, disallowed, web.port) });
      return;
    case 'clear':
      web.clearLog();
      send({ type: 'cleared', id: request.id });
      return;
    case 'close':
      void web.close().then(() => {
        send({ type: 'closed', id: request.id });
        process.disconnect?.();
        process.exit(0);
      });
      return;
  }
});

send({
  type: 'ready',
  port: web.port,
  hosts: generated.hosts.length,
  pages,
  seeds: generated.seeds(web.port),
  expected: expected.size,
  disallowed: disallowed.size,
});
