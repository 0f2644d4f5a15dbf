/** Per-day stacked bars drawn as SVG (attributes only, no inline style, so a strict CSP allows it). */
export interface BarSeries {
  key: string;
  label: string;
  color: string;
}

export function StackedDayBars({ title, days, series }: { title: string; days: { day: string; counts: Record<string, number | undefined> }[]; series: BarSeries[] }) {
  const totals = days.map((d) => series.reduce((sum, s) => sum + (d.counts[s.key] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const width = Math.max(days.length, 1) * 10;
  const height = 100;
  return (
    <figure className="space-y-2">
      <svg role="img" aria-label={title} viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" className="h-40 w-full">
        {days.map((d, i) => {
          let y = height;
          return series.map((s) => {
            const value = d.counts[s.key] ?? 0;
            const h = (value / max) * height;
            y -= h;
            return value > 0 ? <rect key={`${d.day}-${s.key}`} x={i * 10 + 1} y={y} width={8} height={h} fill={s.color}><title>{`${d.day} ${s.label}: ${value}`}</title></rect> : null;
          });
        })}
      </svg>
      <figcaption className="flex flex-wrap gap-3 text-sm text-muted">
        {series.map((s) => (
          <span key={s.key} className="inline-flex items-center gap-1">
            <svg width="10" height="10" aria-hidden="true"><rect width="10" height="10" fill={s.color} /></svg>
            {s.label}: {days.reduce((sum, d) => sum + (d.counts[s.key] ?? 0), 0)}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
