import fs from 'node:fs';
import path from 'node:path';

/**
 * Reads the V8 CPU profiles the product wrote (`--cpu-prof`) and prints where its
 * non-idle time went, by library and by function: the profile evidence for a figure
 * that misses its target.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
}

const CATEGORIES: [RegExp, string][] = [
  [/^\((idle)\)$/, 'idle'],
  [/^\((garbage collector)\)$/, 'garbage collector'],
  [/^\((program)\)$/, 'program (native)'],
  [/wasm:\/\/|@electric-sql\/pglite/, 'PGlite (PostgreSQL in WebAssembly)'],
  [/node_modules\/(pg|pg-protocol|pg-pool|pg-types)\//, 'pg driver'],
  [/node_modules\/drizzle-orm\//, 'drizzle-orm'],
  [/node_modules\/(express|router|body-parser|finalhandler|send|serve-static|raw-body|iconv-lite|qs|type-is|content-type|mime)/, 'express'],
  [/node_modules\/(cookie-session|cookies|keygrip)\//, 'cookie-session'],
  [/node_modules\/(pino|pino-std-serializers|sonic-boom|fast-redact|thread-stream)\//, 'pino logging'],
  [/node_modules\/zod\//, 'zod'],
  [/node_modules\/bcryptjs\//, 'bcryptjs'],
  [/node_modules\/(@discordjs|discord\.js|@sapphire|undici)\//, 'discord.js / undici HTTP client'],
  [/node_modules\/pg-boss\//, 'pg-boss'],
  [/node_modules\/prom-client\//, 'prom-client'],
  [/\/(dist\/)?src\//, 'product code'],
  [/^node:|^internal\/|^$/, 'Node.js internals'],
];

function categoryOf(node: ProfileNode): string {
  const key = node.callFrame.url || `(${node.callFrame.functionName.replace(/[()]/g, '')})`;
  for (const [pattern, name] of CATEGORIES) if (pattern.test(key) || pattern.test(node.callFrame.functionName)) return name;
  return 'other libraries';
}

export function summarizeProfiles(dir: string, label: string): string {
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')) : [];
  if (files.length === 0) return `${label}: no CPU profile was written in ${dir}`;
  const byCategory = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  for (const file of files) {
    const profile = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    const self = new Map<number, number>();
    if (profile.samples && profile.timeDeltas) {
      profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas![i] ?? 0) / 1000));
    } else {
      for (const n of profile.nodes) self.set(n.id, n.hitCount ?? 0);
    }
    for (const [id, time] of self) {
      const node = nodes.get(id);
      if (!node) continue;
      const category = categoryOf(node);
      if (category === 'idle') continue;
      total += time;
      byCategory.set(category, (byCategory.get(category) ?? 0) + time);
      const where = node.callFrame.url
        ? `${node.callFrame.url.replace(/^.*node_modules\//, '').replace(/^.*\/(dist\/)?src\//, 'src/')}:${node.callFrame.lineNumber + 1}`
        : '';
      const fn = `${node.callFrame.functionName || '(anonymous)'} ${where}`.trim();
      byFunction.set(fn, (byFunction.get(fn) ?? 0) + time);
    }
  }
  const pct = (v: number) => `${((v / total) * 100).toFixed(1)}%`;
  const top = <K>(map: Map<K, number>, n: number) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n);
  return [
    `CPU profile of the product during ${label} (${(total / 1000).toFixed(1)} s on-CPU, idle excluded):`,
    ...top(byCategory, 12).map(([name, t]) => `  ${pct(t).padStart(6)}  ${name}`),
    '  top functions (self time):',
    ...top(byFunction, 15).map(([name, t]) => `  ${pct(t).padStart(6)}  ${name}`),
  ].join('\n');
}
