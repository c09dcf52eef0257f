// The live heap of a running crawler process: a full garbage collection on its main thread and on
// each worker thread (the workflow thread among them), then the heap each still uses. RSS alone
// cannot tell memory held from heap V8 keeps because nothing asked it to give it back; this can.
//
//   npm run -s bench:live-heap -- PID            (e.g. the pid of `crawler crawl` or `crawler worker`)
//   npm run -s bench:live-heap -- PID --port 9230
//
// It opens the process's inspector (SIGUSR1, loopback only, as `node --inspect` would) and talks
// the DevTools protocol to it. Each collection pauses that thread for as long as a full GC takes
// (about a second for a few hundred MB). Prints one line per thread.
import { parseArgs } from 'node:util';
import { fetch, WebSocket } from 'undici';

interface ProtocolMessage {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message: string };
}

interface AttachedWorker {
  sessionId: string;
  workerInfo: { title: string; url: string };
}

const INSPECTOR_WAIT_MS = 10_000;

const { values, positionals } = parseArgs({ allowPositionals: true, options: { port: { type: 'string', default: '9229' } } });
const pid = Number(positionals[0]);
if (!Number.isInteger(pid) || pid <= 0) {
  console.error(`bench:live-heap: give the pid of a running Node process (got '${positionals[0] ?? ''}'), e.g. npm run -s bench:live-heap -- $(pgrep -f 'crawler.js crawl')`);
  process.exit(2);
}
const port = Number(values.port);

process.kill(pid, 'SIGUSR1');
const target = await inspectorTarget(port);
const socket = new WebSocket(target);
await new Promise<void>((resolve, reject) => {
  socket.onopen = () => resolve();
  socket.onerror = () => reject(new Error(`could not connect to the inspector at ${target}`));
});

let lastId = 0;
const answers = new Map<string, (message: ProtocolMessage) => void>();
const workers: AttachedWorker[] = [];
socket.onmessage = (event: { data: unknown }) => {
  const message = JSON.parse(String(event.data)) as ProtocolMessage;
  if (message.method === 'NodeWorker.attachedToWorker') workers.push(message.params as unknown as AttachedWorker);
  if (message.method === 'NodeWorker.receivedMessageFromWorker') {
    const { sessionId, message: inner } = message.params as { sessionId: string; message: string };
    const reply = JSON.parse(inner) as ProtocolMessage;
    answers.get(`${sessionId}/${reply.id}`)?.(reply);
    return;
  }
  if (message.id !== undefined) answers.get(`main/${message.id}`)?.(message);
};

/** Sends a DevTools command to the main thread, or through NodeWorker to a worker thread's session. */
function send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<ProtocolMessage> {
  const id = ++lastId;
  const reply = new Promise<ProtocolMessage>((resolve) => answers.set(`${sessionId ?? 'main'}/${id}`, resolve));
  const command = JSON.stringify({ id, method, params });
  socket.send(sessionId === undefined ? command : JSON.stringify({ id: ++lastId, method: 'NodeWorker.sendMessageToWorker', params: { sessionId, message: command } }));
  return reply;
}

async function liveHeap(label: string, sessionId?: string): Promise<void> {
  await send('HeapProfiler.enable', {}, sessionId);
  await send('HeapProfiler.collectGarbage', {}, sessionId);
  const usage = await send('Runtime.getHeapUsage', {}, sessionId);
  if (usage.error) throw new Error(`${label}: ${usage.error.message}`);
  const mb = (bytes: unknown) => (Number(bytes) / 1_048_576).toFixed(1);
  console.log(`${new Date().toISOString()} pid ${pid} ${label}: live heap ${mb(usage.result?.usedSize)} MB (heap ${mb(usage.result?.totalSize)} MB)`);
}

// SIGUSR1 opens the default port: another process may hold it already.
const answeredBy = await send('Runtime.evaluate', { expression: 'process.pid', returnByValue: true });
const inspectedPid = (answeredBy.result?.result as { value?: unknown } | undefined)?.value;
if (inspectedPid !== pid) {
  console.error(`bench:live-heap: the inspector on 127.0.0.1:${port} belongs to pid ${String(inspectedPid)}, not ${pid}: that process opened it first. Stop it, or read that one.`);
  process.exit(1);
}
await liveHeap('main thread');
await send('NodeWorker.enable', { waitForDebuggerOnStart: false });
// Attached workers are announced as events right after the command.
await new Promise((resolve) => setTimeout(resolve, 1_000));
for (const worker of workers) await liveHeap(`worker thread ${worker.workerInfo.title || worker.workerInfo.url}`, worker.sessionId);
await send('NodeWorker.disable');
socket.close();
process.exit(0);

/** The inspector's WebSocket address once the process has opened it. */
async function inspectorTarget(inspectorPort: number): Promise<string> {
  const deadline = Date.now() + INSPECTOR_WAIT_MS;
  for (;;) {
    try {
      const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
      if (targets[0]) return targets[0].webSocketDebuggerUrl;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      console.error(`bench:live-heap: no inspector on 127.0.0.1:${inspectorPort} ${INSPECTOR_WAIT_MS / 1000} s after SIGUSR1 to pid ${pid}; is the port taken by another process (--port)?`);
      process.exit(1);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
