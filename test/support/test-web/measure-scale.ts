// Measures what a big test web costs: `npx tsx test/support/test-web/measure-scale.ts [hosts]`
// (default 10,000). Prints listen time, memory, a request per sampled host, and close time.
import { request } from 'undici';
import { loopbackHosts } from './loopback.js';
import { startTestWeb } from './server.js';

const count = Number(process.argv[2] ?? 10_000);
const hosts = loopbackHosts(count, { base: '127.50.0.0' });
const spec = { hosts: hosts.map((host) => ({ host, pages: [{ path: '/', body: (ctx: { host: string }) => ctx.host }] })) };

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
global.gc?.();
const before = process.memoryUsage();
let at = performance.now();
const web = await startTestWeb(spec);
const listenMs = performance.now() - at;
global.gc?.();
const after = process.memoryUsage();

at = performance.now();
const sample = hosts.filter((_, i) => i % Math.max(1, Math.floor(count / 200)) === 0);
const wrong = (await Promise.all(sample.map(async (host) => ((await (await request(web.url(host))).body.text()) === host ? 0 : 1)))).reduce<number>((a, b) => a + b, 0);
const requestMs = performance.now() - at;

at = performance.now();
await web.close();
const closeMs = performance.now() - at;

console.log(
  JSON.stringify({
    hosts: count,
    port: web.port,
    listenMs: Math.round(listenMs),
    rssDelta: mb(after.rss - before.rss),
    heapDelta: mb(after.heapUsed - before.heapUsed),
    sampledRequests: sample.length,
    wrongHostAnswers: wrong,
    sampleRequestsMs: Math.round(requestMs),
    closeMs: Math.round(closeMs),
  }),
);
process.exit(wrong === 0 ? 0 : 1);
