import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './product-process';
import { kb, type FigureResult } from './results';

/** What scripts/measure-bundle.mjs (the web side's measurement of P5) returns. */
interface BundleMeasurement {
  visitorGzipBytes: number;
  visitorBytes: number;
  budgetBytes: number;
  withinBudget: boolean;
  files: { file: string; bytes: number; gzipBytes: number }[];
  visitorLazyChunks: { file: string; src?: string; bytes: number; gzipBytes: number }[];
  adminChunks: { file: string; src?: string; bytes: number; gzipBytes: number }[];
  staffModulesInVisitorFiles: string[];
  adminSeparated: boolean;
}

/**
 * P5: the JavaScript a visitor downloads for the verification page — the entry chunk and
 * every chunk it imports statically, gzip level 9 — and proof that no staff module is
 * in it. The measurement itself is scripts/measure-bundle.mjs (it reads Vite's manifest
 * and the chunk → module map vite.config.ts writes); `npm run bench` builds first.
 */
export async function measureBundle(webDist = path.join(repoRoot(), 'dist/web')): Promise<FigureResult[]> {
  const script = pathToFileURL(path.join(repoRoot(), 'scripts/measure-bundle.mjs')).href;
  const { measureBundle: measure } = (await import(script)) as { measureBundle: (options: { distDir: string }) => BundleMeasurement };
  const m = measure({ distDir: webDist });
  const lazy = m.visitorLazyChunks.reduce((sum, c) => sum + c.gzipBytes, 0);
  return [
    {
      figure: 'P5 visitor page JS (gzip)',
      engine: 'n/a',
      value: kb(m.visitorGzipBytes),
      target: `≤ ${(m.budgetBytes / 1000).toFixed(0)} kB`,
      pass: m.withinBudget,
      note:
        `P5: entry + static imports ${m.files.map((f) => `${path.posix.basename(f.file)} ${kb(f.gzipBytes)}`).join(', ')} (${kb(m.visitorBytes)} uncompressed); ` +
        `chunks a visitor page may load later ${kb(lazy)} gzip in ${m.visitorLazyChunks.length}; the product serves dist/web uncompressed, so without a compressing proxy a visitor downloads ${kb(m.visitorBytes)}`,
    },
    {
      figure: 'P5 admin code in separate chunks',
      engine: 'n/a',
      value: m.adminSeparated ? `yes (${m.adminChunks.length} staff chunks)` : `no (${m.staffModulesInVisitorFiles.length} staff modules in visitor files)`,
      target: 'separate chunks',
      pass: m.adminSeparated,
      note: `P5: staff modules in the visitor files: ${m.staffModulesInVisitorFiles.join(', ') || 'none'}; staff chunks ${kb(m.adminChunks.reduce((s, c) => s + c.gzipBytes, 0))} gzip`,
    },
  ];
}
