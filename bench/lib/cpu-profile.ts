// Where a Node process's JavaScript thread spent its time, from a V8 .cpuprofile (node
// --cpu-prof): self time grouped by package or source folder. Native threads (Temporal's Rust
// core, libuv's pool) are not in it: compare with the process's CPU seconds from /proc.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileShare {
  what: string;
  /** Seconds of self time. */
  seconds: number;
  /** Share of the busy (non-idle) time, percent. */
  percent: number;
}

export interface ProfileSummary {
  busySeconds: number;
  idleSeconds: number;
  byCategory: ProfileShare[];
  topFunctions: ProfileShare[];
}

function categoryOf(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame;
  if (url === '') {
    if (functionName === '(idle)') return '(idle)';
    if (functionName === '(garbage collector)') return 'V8 garbage collector';
    if (functionName === '(program)') return 'V8/native (program)';
    return `native ${functionName}`;
  }
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  // The last node_modules segment names the package that owns the code.
  const owner = [...url.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)].at(-1)?.[1];
  if (owner !== undefined) return owner;
  const source = /\/(src|bench|test)\/([^/]+)/.exec(url);
  if (source) return `${source[1]}/${source[2]}`;
  if (url.includes('workflow-bundle') || url.includes('/cache/')) return 'workflow bundle';
  return url.replace(/^file:\/\//, '').split('/').slice(-2).join('/');
}

export function summarizeCpuProfile(file: string, top = 12): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const categories = new Map<string, number>();
  const functions = new Map<string, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]!);
    if (!node) continue;
    const micros = profile.timeDeltas[i] ?? 0;
    const category = categoryOf(node.callFrame);
    categories.set(category, (categories.get(category) ?? 0) + micros);
    if (category !== '(idle)') {
      const name = `${node.callFrame.functionName || '(anonymous)'} [${category}]`;
      functions.set(name, (functions.get(name) ?? 0) + micros);
    }
  }
  const idle = categories.get('(idle)') ?? 0;
  categories.delete('(idle)');
  let busy = 0;
  for (const micros of categories.values()) busy += micros;
  const shares = (map: Map<string, number>): ProfileShare[] =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([what, micros]) => ({ what, seconds: Math.round(micros / 1e4) / 100, percent: Math.round((micros / Math.max(1, busy)) * 1000) / 10 }));
  return { busySeconds: Math.round(busy / 1e4) / 100, idleSeconds: Math.round(idle / 1e4) / 100, byCategory: shares(categories), topFunctions: shares(functions) };
}
