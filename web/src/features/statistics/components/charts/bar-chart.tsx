import { useEffect, useRef, useState } from 'react';
import type { ChartConfiguration } from 'chart.js';
import { cn } from '@/lib/cn';

/** The palette's colours a series can take (the same tokens as the rest of the dashboard). */
export type SeriesTone = 'success' | 'warning' | 'danger' | 'info' | 'link' | 'muted';

const TONES: Record<SeriesTone, { cssVar: string; fallback: string; swatch: string }> = {
  success: { cssVar: '--gk-success', fallback: '#23a559', swatch: 'fill-success' },
  warning: { cssVar: '--gk-warning', fallback: '#f0b232', swatch: 'fill-warning' },
  danger: { cssVar: '--gk-danger', fallback: '#da373c', swatch: 'fill-danger' },
  info: { cssVar: '--gk-info', fallback: '#5865f2', swatch: 'fill-info' },
  link: { cssVar: '--gk-link', fallback: '#00a8fc', swatch: 'fill-link' },
  muted: { cssVar: '--gk-muted', fallback: '#a7abb3', swatch: 'fill-muted' },
};

export interface ChartSeries {
  label: string;
  tone: SeriesTone;
  /** one value per category */
  values: number[];
}

export interface BarChartProps {
  /** what the chart shows, read by screen readers with the totals */
  title: string;
  /** the column header of the categories in the table (e.g. 'Day', 'Provider') */
  categoryLabel: string;
  categories: string[];
  /** how a category is written under the axis (default: as is) */
  tickLabel?: (category: string) => string;
  series: ChartSeries[];
  /** bars side by side horizontally (long category names, e.g. VPN providers) */
  horizontal?: boolean;
  /** the legend shows each series' total (for per-day charts) */
  totals?: boolean;
}

function cssColor(root: Element, tone: SeriesTone): string {
  const { cssVar, fallback } = TONES[tone];
  return getComputedStyle(root).getPropertyValue(cssVar).trim() || fallback;
}

function buildConfig(props: BarChartProps, root: Element): ChartConfiguration<'bar', number[], string> {
  const text = cssColor(root, 'muted');
  const grid = getComputedStyle(root).getPropertyValue('--gk-border').trim() || '#3f4147';
  const stacked = props.series.length > 1;
  const tickLabel = props.tickLabel;
  // a callback given as undefined would replace Chart.js's own (which writes the category's name)
  const categoryTicks = {
    color: text,
    autoSkip: true,
    maxRotation: 0,
    ...(tickLabel ? { callback: (value: string | number) => tickLabel(props.categories[Number(value)] ?? '') } : {}),
  };
  const valueTicks = { color: text, precision: 0 };
  return {
    type: 'bar',
    data: {
      labels: props.categories,
      datasets: props.series.map((s) => ({
        label: s.label,
        data: s.values,
        backgroundColor: cssColor(root, s.tone),
        borderWidth: 0,
        maxBarThickness: 28,
      })),
    },
    options: {
      indexAxis: props.horizontal ? 'y' : 'x',
      responsive: true,
      maintainAspectRatio: false,
      // drawn once per period change: no animation to wait for (and nothing moves for those who asked for less motion)
      animation: false,
      interaction: { mode: 'index', intersect: false },
      plugins: { tooltip: { enabled: true } },
      scales: props.horizontal
        ? {
            x: { stacked, beginAtZero: true, ticks: valueTicks, grid: { color: grid } },
            y: { stacked, ticks: categoryTicks, grid: { display: false } },
          }
        : {
            x: { stacked, ticks: categoryTicks, grid: { display: false } },
            y: { stacked, beginAtZero: true, ticks: valueTicks, grid: { color: grid } },
          },
    },
  };
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/**
 * A bar chart drawn by Chart.js (loaded on first use), with its text alternative: the
 * canvas is an image named by the title and the totals, and the same numbers are in a
 * table under 'Show as a table'. Until Chart.js has loaded (or when it cannot), the
 * legend and the table carry every number.
 */
export function BarChart(props: BarChartProps) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const [failed, setFailed] = useState(false);
  // the chart is rebuilt when what it shows changes (a new period): one key for the data
  const dataKey = JSON.stringify([props.categories, props.series, props.horizontal]);

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    let cancelled = false;
    let chart: { destroy(): void } | undefined;
    import('./chart-setup')
      .then(({ Chart }) => {
        if (cancelled) return;
        chart = new Chart(canvas, buildConfig(props, document.documentElement));
      })
      .catch(() => setFailed(true));
    return () => {
      cancelled = true;
      chart?.destroy();
    };
    // props are read through dataKey: the chart changes only when its data does
  }, [dataKey]);

  const summary = props.series.map((s) => `${s.label}: ${sum(s.values)}`).join(', ');
  const rows = props.categories
    .map((category, i) => ({ category, values: props.series.map((s) => s.values[i] ?? 0) }))
    .filter((row) => row.values.some((v) => v > 0));
  return (
    <figure className="space-y-3">
      <div className={cn('relative w-full', props.horizontal ? 'h-48' : 'h-56')}>
        <canvas ref={canvasRef} role="img" aria-label={`${props.title}. ${summary}`} hidden={failed} />
      </div>
      <figcaption className="flex flex-wrap gap-x-4 gap-y-1 text-sm text-muted">
        {props.series.map((s) => (
          <span key={s.label} className="inline-flex items-center gap-1.5">
            <svg width="10" height="10" aria-hidden="true" className={TONES[s.tone].swatch}>
              <rect width="10" height="10" rx="2" />
            </svg>
            {props.totals === false ? s.label : `${s.label}: ${sum(s.values)}`}
          </span>
        ))}
      </figcaption>
      <details className="text-sm">
        <summary className="cursor-pointer text-muted hover:text-fg">Show as a table</summary>
        {rows.length === 0 ? (
          <p className="mt-2 text-muted">Nothing in this period.</p>
        ) : (
          <div className="mt-2 max-h-64 overflow-auto">
            <table className="w-full text-left tabular-nums">
              <caption className="sr-only">{props.title}</caption>
              <thead>
                <tr className="text-muted">
                  <th scope="col" className="py-1 pr-3 font-medium">
                    {props.categoryLabel}
                  </th>
                  {props.series.map((s) => (
                    <th key={s.label} scope="col" className="py-1 pr-3 text-right font-medium">
                      {s.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={row.category} className="border-t border-border">
                    <th scope="row" className="whitespace-nowrap py-1 pr-3 font-normal">
                      {row.category}
                    </th>
                    {row.values.map((v, i) => (
                      <td key={props.series[i]!.label} className="py-1 pr-3 text-right">
                        {v}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </details>
    </figure>
  );
}
