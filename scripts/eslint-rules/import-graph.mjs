// Reads the import graph of the repository's TypeScript sources once per lint run.
// A "unit" is a whole module folder (src/modules/<name>) or, anywhere else, a single file,
// so a cycle between two modules counts even when no single file imports itself back.
import fs from 'node:fs';
import path from 'node:path';

export const repoRoot = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
export const modulesRoot = path.join(repoRoot, 'src', 'modules');
const roots = ['src', 'web/src', 'scripts'].map((r) => path.join(repoRoot, r));
const aliases = [
  { prefix: '@shared/', dir: path.join(repoRoot, 'src', 'shared') },
  { prefix: '@/', dir: path.join(repoRoot, 'web', 'src') },
];
const importPattern = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*\(?\s*['"]([^'"]+)['"]/g;

/** Test files and test helpers may import anything; they are not part of the runtime graph. */
export function isTestFile(file) {
  return (
    /\.test\.tsx?$/.test(file) ||
    file.split(path.sep).includes('test-support') ||
    file.includes(`${path.sep}web${path.sep}src${path.sep}test${path.sep}`)
  );
}

/** The module name when `file` lies under src/modules/<name>/, else null. */
export function moduleNameOf(file) {
  const rel = path.relative(modulesRoot, file);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return null;
  const parts = rel.split(path.sep);
  return parts.length > 1 ? parts[0] : null;
}

export function unitOf(file) {
  const name = moduleNameOf(file);
  return name ? `src/modules/${name}` : path.relative(repoRoot, file);
}

/** The path an aliased specifier (@shared/…, @/…) names, or null when it uses no alias. */
export function aliasTarget(spec) {
  const alias = aliases.find((a) => spec.startsWith(a.prefix));
  return alias ? path.join(alias.dir, spec.slice(alias.prefix.length)) : null;
}

/** Resolves an import specifier to a source file path, or null for packages and unknown files. */
export function resolveImport(fromFile, spec) {
  const base = spec.startsWith('.') ? path.resolve(path.dirname(fromFile), spec) : aliasTarget(spec);
  if (!base) return null;
  const stripped = base.replace(/\.js$/, '');
  for (const candidate of [base, `${stripped}.ts`, `${stripped}.tsx`, path.join(base, 'index.ts'), path.join(base, 'index.tsx')]) {
    if (/\.tsx?$/.test(candidate) && fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return null;
}

function walk(dir, out) {
  if (!fs.existsSync(dir)) return out;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'migrations') walk(full, out);
    } else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

let cached = null;

function addEdge(edges, from, to) {
  if (from === to) return;
  if (!edges.has(from)) edges.set(from, new Set());
  edges.get(from).add(to);
}

/**
 * Edges of the runtime graph (test files left out), type-only imports included:
 * `files` between single files, `units` between units.
 */
export function importGraph() {
  if (cached) return cached;
  const files = new Map();
  const units = new Map();
  for (const file of roots.flatMap((r) => walk(r, []))) {
    if (isTestFile(file)) continue;
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(importPattern)) {
      const target = resolveImport(file, match[1] ?? match[2]);
      if (!target || isTestFile(target)) continue;
      addEdge(files, file, target);
      addEdge(units, unitOf(file), unitOf(target));
    }
  }
  cached = { files, units };
  return cached;
}

/** A path of units from `start` to `goal`, or null when `goal` cannot be reached. */
export function findPath(edges, start, goal) {
  const previous = new Map([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const unit = queue.shift();
    if (unit === goal) {
      const route = [];
      for (let at = goal; at !== null; at = previous.get(at)) route.unshift(at);
      return route;
    }
    for (const next of edges.get(unit) ?? []) {
      if (!previous.has(next)) {
        previous.set(next, unit);
        queue.push(next);
      }
    }
  }
  return null;
}
