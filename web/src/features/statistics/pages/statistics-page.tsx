import { useState } from 'react';
import { MEMBER_STATES } from '@shared/member-states';
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card';
import { LoadError } from '@/components/ui/load-error';
import { PageShell } from '@/components/ui/page-shell';
import { Button } from '@/components/ui/button';
import { apiErrorMessage } from '@/lib/api';
import {
  STATISTICS_PERIODS,
  useStatistics,
  type AppealCountKey,
  type DayCount,
  type StatisticsPeriod,
  type StatisticsResponse,
  type VerificationCountKey,
} from '../api/statistics';
import { AdminPageHeader, useSignInRedirect } from '@/features/admin-shell';
import { BarChart, type ChartSeries, type SeriesTone } from '../components/charts/bar-chart';
import { periodDays, seriesValues, shortDay } from '../components/charts/period-days';

/** Each verification under one key (docs/behaviour.md#statistics): denied as an alt and held for review come out of the others. */
const OUTCOMES = [
  { key: 'verified', label: MEMBER_STATES.verified.label, tone: 'success' },
  { key: 'limited_access', label: MEMBER_STATES.limited.label, tone: 'warning' },
  { key: 'denied', label: 'Denied', tone: 'danger' },
  { key: 'denied_alt', label: 'Denied (alt)', tone: 'link' },
  { key: 'pending', label: 'Pending review', tone: 'muted' },
] as const satisfies readonly { key: VerificationCountKey; label: string; tone: SeriesTone }[];
const CONFIDENCES = [
  { key: 'certain', label: 'Certain', tone: 'danger' },
  { key: 'medium', label: 'Medium', tone: 'warning' },
] as const;
/** Appeals per day: filed, and decided either way. */
const APPEALS = [
  { key: 'submitted', label: 'Submitted', tone: 'info' },
  { key: 'approved', label: 'Approved', tone: 'success' },
  { key: 'rejected', label: 'Rejected', tone: 'danger' },
] as const satisfies readonly { key: AppealCountKey; label: string; tone: SeriesTone }[];

/** /admin/statistics (all staff): what happened over the last 7, 30 or 90 days. */
export default function StatisticsPage() {
  const [days, setDays] = useState<StatisticsPeriod>(7);
  const { data, error, mutate } = useStatistics(days);
  useSignInRedirect(error);
  return (
    <PageShell width="lg">
      <AdminPageHeader title="Statistics" subtitle="Verifications, alt links, VPNs, appeals and raid alarms per UTC day" back />
      <div role="group" aria-label="Period" className="mb-4 flex gap-2">
        {STATISTICS_PERIODS.map((p) => (
          <Button key={p} variant={p === days ? 'primary' : 'secondary'} size="sm" aria-pressed={p === days} onClick={() => setDays(p)}>
            {p} days
          </Button>
        ))}
      </div>
      {data ? (
        <StatisticsCharts data={data} />
      ) : error ? (
        <LoadError title="Could not load statistics" onRetry={() => void mutate()}>
          {apiErrorMessage(error, 'The statistics could not be loaded.')}
        </LoadError>
      ) : (
        <p role="status" className="text-muted">
          Loading statistics...
        </p>
      )}
    </PageShell>
  );
}

function StatisticsCharts({ data }: { data: StatisticsResponse }) {
  const days = periodDays(data.from, data.periodDays);
  const perDay = <K extends string>(counts: DayCount<K>[], series: readonly { key: K; label: string; tone: SeriesTone }[]): ChartSeries[] =>
    series.map((s) => ({ label: s.label, tone: s.tone, values: seriesValues(days, counts, s.key) }));
  const raidDays = data.raidAlarmsPerDay.map((d) => ({ day: d.day, counts: { alarms: d.alarms } }));
  const vpnShare = data.vpn.attempts > 0 ? Math.round((data.vpn.vpnAttempts / data.vpn.attempts) * 100) : 0;
  const dayChart = { categoryLabel: 'Day', categories: days, tickLabel: shortDay };
  return (
    <div className="grid gap-4 lg:grid-cols-2">
      <Card>
        <CardHeader>
          <CardTitle>Verifications per day</CardTitle>
        </CardHeader>
        <CardContent>
          <BarChart title="Verifications per day by outcome" {...dayChart} series={perDay(data.verificationsPerDay, OUTCOMES)} />
        </CardContent>
      </Card>
      <Card>
        <CardHeader>
          <CardTitle>Alt links per day</CardTitle>
        </CardHeader>
        <CardContent>
          <BarChart title="Alt links per day by confidence" {...dayChart} series={perDay(data.altLinksPerDay, CONFIDENCES)} />
        </CardContent>
      </Card>
      <Card>
        <CardHeader>
          <CardTitle>VPN</CardTitle>
        </CardHeader>
        <CardContent className="space-y-3">
          <p>
            {data.vpn.vpnAttempts} of {data.vpn.attempts} attempts through a VPN ({vpnShare}%)
          </p>
          {data.vpn.providers.length === 0 ? (
            <p className="text-muted">No VPN provider seen.</p>
          ) : (
            <BarChart
              title="Attempts per VPN provider"
              categoryLabel="Provider"
              categories={data.vpn.providers.map((p) => p.provider)}
              series={[{ label: 'Attempts', tone: 'link', values: data.vpn.providers.map((p) => p.attempts) }]}
              horizontal
              totals={false}
            />
          )}
        </CardContent>
      </Card>
      <Card>
        <CardHeader>
          <CardTitle>Appeals per day</CardTitle>
        </CardHeader>
        <CardContent>
          <BarChart title="Appeals per day by decision" {...dayChart} series={perDay(data.appealsPerDay, APPEALS)} />
        </CardContent>
      </Card>
      <Card>
        <CardHeader>
          <CardTitle>Raid alarms per day</CardTitle>
        </CardHeader>
        <CardContent>
          <BarChart
            title="Raid alarms per day"
            {...dayChart}
            series={perDay(raidDays, [{ key: 'alarms', label: 'Raid alarms', tone: 'danger' }])}
          />
        </CardContent>
      </Card>
    </div>
  );
}
