import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import express from 'express';
import { spaRouter } from '../../src/http/spa';
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
/** Body bytes a browser receives for one path, asking for `br, gzip` (no decoding: what crossed the wire). */
function transferredBytes(base: string, pathname: string): Promise<{ bytes: number; encoding: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(new URL(pathname, base), { headers: { 'accept-encoding': 'br, gzip' } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () =>
        res.statusCode === 200
          ? resolve({ bytes, encoding: String(res.headers['content-encoding'] ?? 'identity') })
          : reject(new Error(`${pathname}: HTTP ${res.statusCode}`)),
      );
    });
    req.on('error', reject);
  });
}

/**
 * The visitor page over HTTP as the product serves it (src/http/spa.ts): index.html, then
 * the JS and CSS it names and the entry's static imports, each fetched with
 * `Accept-Encoding: br, gzip`; the sum of the bytes received.
 */
async function measureOverHttp(webDist: string, entryFiles: string[]): Promise<{ bytes: number; parts: string[] }> {
  const app = express();
  app.use(spaRouter(webDist));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const index = await transferredBytes(base, '/');
    const html = await (await fetch(`${base}/`)).text();
    const named = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    const paths = [...new Set([...named, ...entryFiles.map((f) => `/${f}`)])];
    const parts = [`index.html ${kb(index.bytes)} ${index.encoding}`];
    let bytes = index.bytes;
    for (const p of paths) {
      const got = await transferredBytes(base, p);
      bytes += got.bytes;
      parts.push(`${path.posix.basename(p)} ${kb(got.bytes)} ${got.encoding}`);
    }
    return { bytes, parts };
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

export async function measureBundle(webDist = path.join(repoRoot(), 'dist/web')): Promise<FigureResult[]> {
  const script = pathToFileURL(path.join(repoRoot(), 'scripts/measure-bundle.mjs')).href;
  const { measureBundle: measure } = (await import(script)) as { measureBundle: (options: { distDir: string }) => BundleMeasurement };
  const m = measure({ distDir: webDist });
  const lazy = m.visitorLazyChunks.reduce((sum, c) => sum + c.gzipBytes, 0);
  const wire = await measureOverHttp(
    webDist,
    m.files.map((f) => f.file),
  );
  return [
    {
      figure: 'P5 visitor page over HTTP (br, gzip)',
      engine: 'n/a',
      value: kb(wire.bytes),
      target: '≤ 45 kB',
      pass: wire.bytes <= 45_000,
      note: `P5 over HTTP: ${wire.parts.join(', ')}`,
    },
    {
      figure: 'P5 visitor page JS (gzip)',
      engine: 'n/a',
      value: kb(m.visitorGzipBytes),
      target: `≤ ${(m.budgetBytes / 1000).toFixed(0)} kB`,
      pass: m.withinBudget,
      note:
        `P5: entry + static imports ${m.files.map((f) => `${path.posix.basename(f.file)} ${kb(f.gzipBytes)}`).join(', ')} (${kb(m.visitorBytes)} uncompressed); ` +
        `chunks a visitor page may load later ${kb(lazy)} gzip in ${m.visitorLazyChunks.length}; the product serves the build's brotli/gzip copies (see the HTTP figure)`,
    },
    {
      figure: 'P5 admin code in separate chunks',
      engine: 'n/a',
      value: m.adminSeparated
        ? `yes (${m.adminChunks.length} staff chunks)`
        : `no (${m.staffModulesInVisitorFiles.length} staff modules in visitor files)`,
      target: 'separate chunks',
      pass: m.adminSeparated,
      note: `P5: staff modules in the visitor files: ${m.staffModulesInVisitorFiles.join(', ') || 'none'}; staff chunks ${kb(m.adminChunks.reduce((s, c) => s + c.gzipBytes, 0))} gzip`,
    },
  ];
}
