import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from './product-process';
/** One row of the bench table: a figure measured on one engine, against its target. */
export interface FigureResult {
  figure: string;
  engine: 'pglite' | 'postgres' | 'n/a';
  /** what was measured, human readable ('3.2 ms p99', '412 flows/s') */
  value: string;
  target: string;
  pass: boolean | null;
  /** one line of context printed under the table (load, sizes, what limits it) */
  note?: string;
}

export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function summarize(samples: readonly number[]): { n: number; p50: number; p95: number; p99: number; max: number; mean: number } {
  const n = samples.length;
  const mean = n ? samples.reduce((a, b) => a + b, 0) / n : Number.NaN;
  return {
    n,
    p50: percentile(samples, 50),
    p95: percentile(samples, 95),
    p99: percentile(samples, 99),
    max: n ? Math.max(...samples) : Number.NaN,
    mean,
  };
}

export const ms = (value: number, digits = 1) => `${value.toFixed(digits)} ms`;
export const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;
export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

/** The one table `npm run bench` prints, then the notes, numbered by row. */
export function formatTable(results: readonly FigureResult[]): string {
  const header = ['#', 'figure', 'engine', 'value', 'target', 'result'];
  const rows = results.map((r, i) => [
    String(i + 1),
    r.figure,
    r.engine,
    r.value,
    r.target,
    r.pass === null ? 'info' : r.pass ? 'PASS' : 'FAIL',
  ]);
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, c) => pad(cell, widths[c]!)).join(' | ')} |`;
  const out = [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)];
  const notes = results.map((r, i) => (r.note ? `  [${i + 1}] ${r.note}` : null)).filter((n): n is string => n !== null);
  if (notes.length) out.push('', 'Notes:', ...notes);
  return out.join('\n');
}

/** Where each run's report is kept (ignored by git: the history of the figures is the history of this code). */
export const resultsDir = () => path.join(repoRoot(), 'bench-results');

/** Writes the run's report to bench-results/<time>.txt and bench-results/latest.txt; returns the first path. */
export function writeResultsFile(report: string, at = new Date(), folder = resultsDir()): string {
  fs.mkdirSync(folder, { recursive: true });
  const file = path.join(folder, `${at.toISOString().replace(/[:.]/g, '-')}.txt`);
  fs.writeFileSync(file, report);
  fs.writeFileSync(path.join(folder, 'latest.txt'), report);
  return file;
}
