#!/usr/bin/env node
// P5: how much JavaScript a visitor downloads, and proof that staff code is elsewhere.
//
//   node scripts/measure-bundle.mjs [dist/web] [--json] [--check]
//
// Reads a production build (`npx vite build`; vite.config.ts writes .vite/manifest.json and
// .vite/chunk-modules.json). The visitor figure is the entry chunk plus every chunk it imports
// statically (what index.html loads and modulepreloads), each gzipped at level 9 and summed, as a
// compressing proxy would serve them. Chunks a visitor page may load later (the policy pages, the
// toast renderer) are listed apart. `--check` exits 1 when the figure is over budget or a staff
// module is in the visitor files. The bench imports `measureBundle()`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import zlib from 'node:zlib';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** P5 target: 80 KB gzip, read as 80,000 bytes (the stricter reading of "KB"). */
export const VISITOR_BUDGET_BYTES = 80_000;

/** Source modules that only staff screens need: none may be in the visitor entry graph. */
const STAFF_MODULE = /^web\/src\/features\/(admin-shell|members|appeals-queue|staff|settings|audit|statistics|setup)\//;

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

function sizeOf(distDir, file) {
  const bytes = fs.readFileSync(path.join(distDir, file));
  return { file, bytes: bytes.length, gzipBytes: zlib.gzipSync(bytes, { level: 9 }).length };
}

/**
 * Measures a build.
 * @param {{ distDir?: string, log?: boolean }} [options] distDir defaults to <repo>/dist/web; log prints a table.
 * @returns {{
 *   visitorGzipBytes: number, visitorBytes: number, budgetBytes: number, withinBudget: boolean,
 *   files: Array<{file: string, bytes: number, gzipBytes: number}>,
 *   visitorLazyChunks: Array<{file: string, src?: string, bytes: number, gzipBytes: number}>,
 *   adminChunks: Array<{file: string, src?: string, bytes: number, gzipBytes: number}>,
 *   staffModulesInVisitorFiles: string[], adminSeparated: boolean,
 * }}
 */
export function measureBundle({ distDir = path.join(repoRoot, 'dist/web'), log = false } = {}) {
  const manifestFile = path.join(distDir, '.vite', 'manifest.json');
  if (!fs.existsSync(manifestFile))
    throw new Error(`${manifestFile} is missing: build with \`npx vite build\` (vite.config.ts enables build.manifest)`);
  /** @type {Record<string, {file: string, src?: string, isEntry?: boolean, isDynamicEntry?: boolean, imports?: string[], dynamicImports?: string[]}>} */
  const manifest = readJson(manifestFile);
  const modulesFile = path.join(distDir, '.vite', 'chunk-modules.json');
  /** @type {Record<string, string[]> | undefined} */
  const chunkModules = fs.existsSync(modulesFile) ? readJson(modulesFile) : undefined;

  const entryKey = Object.keys(manifest).find((key) => manifest[key].isEntry);
  if (!entryKey) throw new Error('the manifest has no entry chunk');

  // The entry and its static imports, transitively: everything the first page load fetches.
  const visitorKeys = new Set();
  const walk = (key) => {
    if (visitorKeys.has(key)) return;
    visitorKeys.add(key);
    for (const dep of manifest[key].imports ?? []) walk(dep);
  };
  walk(entryKey);
  const files = [...visitorKeys].map((key) => sizeOf(distDir, manifest[key].file)).filter((f) => f.file.endsWith('.js'));
  const visitorFiles = new Set(files.map((f) => f.file));

  // A staff page's own chunk (a lazy route under a staff feature: admin-shell, members, appeals-queue, staff, settings, audit, statistics, setup).
  const isStaffChunk = (key) => {
    const chunk = manifest[key];
    if (chunk.src && STAFF_MODULE.test(chunk.src)) return true;
    return (chunkModules?.[chunk.file] ?? []).some((id) => STAFF_MODULE.test(id)) && !visitorFiles.has(chunk.file);
  };
  const describe = (key) => ({ ...sizeOf(distDir, manifest[key].file), ...(manifest[key].src ? { src: manifest[key].src } : {}) });

  // Lazily loaded chunks reachable from visitor routes (not staff pages) and not already loaded.
  const visitorLazyKeys = new Set();
  const walkLazy = (key) => {
    for (const dep of manifest[key].dynamicImports ?? []) {
      if (visitorKeys.has(dep) || visitorLazyKeys.has(dep) || isStaffChunk(dep)) continue;
      visitorLazyKeys.add(dep);
      for (const staticDep of manifest[dep].imports ?? []) if (!visitorKeys.has(staticDep)) visitorLazyKeys.add(staticDep);
      walkLazy(dep);
    }
  };
  for (const key of visitorKeys) walkLazy(key);

  // Everything else is reachable only from staff pages (their own chunks and what they share).
  const adminChunks = Object.keys(manifest)
    .filter((key) => !visitorKeys.has(key) && !visitorLazyKeys.has(key) && manifest[key].file.endsWith('.js'))
    .map(describe)
    .sort((a, b) => b.gzipBytes - a.gzipBytes);
  const visitorLazyChunks = [...visitorLazyKeys].filter((key) => manifest[key].file.endsWith('.js')).map(describe);

  const staffModulesInVisitorFiles = chunkModules
    ? files.flatMap((f) => (chunkModules[f.file] ?? []).filter((id) => STAFF_MODULE.test(id)))
    : [];
  const visitorGzipBytes = files.reduce((sum, f) => sum + f.gzipBytes, 0);
  const visitorBytes = files.reduce((sum, f) => sum + f.bytes, 0);
  const result = {
    visitorGzipBytes,
    visitorBytes,
    budgetBytes: VISITOR_BUDGET_BYTES,
    withinBudget: visitorGzipBytes <= VISITOR_BUDGET_BYTES,
    files,
    visitorLazyChunks,
    adminChunks,
    staffModulesInVisitorFiles,
    adminSeparated: adminChunks.length > 0 && staffModulesInVisitorFiles.length === 0 && chunkModules !== undefined,
  };
  if (log) printReport(result);
  return result;
}

const kb = (bytes) => `${(bytes / 1000).toFixed(2)} kB`;

function printReport(result) {
  const row = (label, f) => `  ${label.padEnd(46)} ${kb(f.bytes).padStart(11)} ${kb(f.gzipBytes).padStart(11)} gzip`;
  const lines = ['visitor entry + static imports (first page load):'];
  for (const f of result.files) lines.push(row(f.file, f));
  lines.push(row('TOTAL', { bytes: result.visitorBytes, gzipBytes: result.visitorGzipBytes }));
  lines.push(`  budget ${kb(result.budgetBytes)} gzip → ${result.withinBudget ? 'PASS' : 'FAIL'}`);
  lines.push('loaded later by visitor pages, on demand:');
  for (const f of result.visitorLazyChunks) lines.push(row(f.src ?? f.file, f));
  const adminGzip = result.adminChunks.reduce((sum, f) => sum + f.gzipBytes, 0);
  lines.push(`staff chunks (${result.adminChunks.length}, ${kb(adminGzip)} gzip in all), never loaded by visitor pages:`);
  for (const f of result.adminChunks) lines.push(row(f.src ?? f.file, f));
  lines.push(
    result.staffModulesInVisitorFiles.length > 0
      ? `staff modules in the visitor files: ${result.staffModulesInVisitorFiles.join(', ')} → FAIL`
      : `staff modules in the visitor files: none${result.adminSeparated ? '' : ' (chunk-modules.json missing: not verified)'}`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const args = process.argv.slice(2);
  const distArg = args.find((arg) => !arg.startsWith('--'));
  const json = args.includes('--json');
  const result = measureBundle({ distDir: distArg ? path.resolve(distArg) : undefined, log: !json });
  if (json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  if (args.includes('--check') && (!result.withinBudget || !result.adminSeparated)) process.exitCode = 1;
}
