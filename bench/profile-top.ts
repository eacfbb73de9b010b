// Top frames of a V8 CPU profile (node --cpu-prof) by self time, and self time per package / source folder.
// Usage: npx tsx bench/profile-top.ts <file.cpuprofile> [--top 25] [--places 15] [--skip-seconds 0] [--callers <function name>]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '25' }, places: { type: 'string', default: '15' }, callers: { type: 'string' }, 'skip-seconds': { type: 'string', default: '0' } } });
const file = positionals[0];
if (!file) throw new Error('usage: profile-top.ts <file.cpuprofile> [--top N]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
// Samples after the first --skip-seconds (start-up: loading modules, generating keys), idle time left out.
const skipUs = Number(values['skip-seconds']) * 1e6;
const idle = new Set(profile.nodes.filter((node) => node.callFrame.functionName === '(idle)').map((node) => node.id));
const selfUs = new Map<number, number>();
let elapsedUs = 0;
profile.samples.forEach((id, index) => {
  const delta = profile.timeDeltas[index] ?? 0;
  elapsedUs += delta;
  if (elapsedUs < skipUs || idle.has(id)) return;
  selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
});
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

const where = (url: string) => {
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) return url.slice(modules + 13).replace(/^(@[^/]+\/[^/]+|[^/]+).*$/, '$1');
  if (url.startsWith('node:')) return url;
  const src = url.indexOf('/src/');
  if (src >= 0) return url.slice(src + 1).replace(/\/[^/]+$/, '/');
  return url === '' ? '(native/VM)' : url.replace(/^.*\//, '');
};
const frames = new Map<string, number>();
const places = new Map<string, number>();
for (const [id, us] of selfUs) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const key = `${functionName || '(anonymous)'}  ${url ? `${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|bench)\//, '$1/')}:${lineNumber + 1}` : ''}`;
  frames.set(key, (frames.get(key) ?? 0) + us);
  places.set(where(url), (places.get(where(url)) ?? 0) + us);
}
const show = (title: string, entries: Map<string, number>, top: number) => {
  console.log(title);
  for (const [key, us] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`  ${((us / total) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${key}`);
  }
};
console.log(`${file}: ${(total / 1000).toFixed(0)} ms busy (idle and the first ${values['skip-seconds']} s left out)`);
show('self time by frame', frames, Number(values.top));
show('self time by package or folder', places, Number(values.places));

// --callers NAME: the call paths (innermost first) that lead to a frame of that name, by its self time.
const callersOf = process.argv.indexOf('--callers');
if (callersOf > 0) {
  const name = process.argv[callersOf + 1];
  const parent = new Map<number, number>();
  for (const node of profile.nodes as (ProfileNode & { children?: number[] })[]) for (const child of node.children ?? []) parent.set(child, node.id);
  const paths = new Map<string, number>();
  for (const [id, us] of selfUs) {
    if (byId.get(id)!.callFrame.functionName !== name) continue;
    const chain: string[] = [];
    for (let at: number | undefined = parent.get(id); at !== undefined && chain.length < 8; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      chain.push(`${frame.functionName || '(anon)'}@${frame.url.replace(/^.*\//, '')}:${frame.lineNumber + 1}`);
    }
    const key = chain.join(' < ');
    paths.set(key, (paths.get(key) ?? 0) + us);
  }
  show(`callers of ${name}`, paths, 8);
}
