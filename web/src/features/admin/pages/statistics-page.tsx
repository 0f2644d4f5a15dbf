import { useState } from 'react';
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card';
import { LoadError } from '@/components/ui/load-error';
import { PageShell } from '@/components/ui/page-shell';
import { Button } from '@/components/ui/button';
import { apiErrorMessage } from '@/lib/api';
import { STATISTICS_PERIODS, useStatistics, type StatisticsPeriod, type StatisticsResponse } from '../api/statistics';
import { AdminPageHeader } from '../components/admin-page-header';
import { StackedDayBars } from '../components/stacked-day-bars';
import { useSignInRedirect } from '../hooks/use-sign-in-redirect';

const OUTCOMES = [
  { key: 'verified', label: 'Verified', color: '#16a34a' },
  { key: 'limited_access', label: 'Limited access', color: '#d97706' },
  { key: 'denied', label: 'Denied', color: '#dc2626' },
];
const CONFIDENCES = [
  { key: 'certain', label: 'Certain', color: '#dc2626' },
  { key: 'medium', label: 'Medium', color: '#d97706' },
  { key: 'possible', label: 'Possible', color: '#2563eb' },
];

/** /admin/statistics (all staff): what happened over the last 7, 30 or 90 days. */
export default function StatisticsPage() {
  const [days, setDays] = useState<StatisticsPeriod>(7);
  const { data, error, mutate } = useStatistics(days);
  useSignInRedirect(error);
  return (
    <PageShell width="lg">
      <AdminPageHeader title="Statistics" subtitle="Verifications, alt links, VPNs and raid alarms per UTC day" back />
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
  const raidDays = data.raidAlarmsPerDay.map((d) => ({ day: d.day, counts: { alarms: d.alarms } }));
  const vpnShare = data.vpn.attempts > 0 ? Math.round((data.vpn.vpnAttempts / data.vpn.attempts) * 100) : 0;
  return (
    <div className="grid gap-4 md:grid-cols-2">
      <Card>
        <CardHeader><CardTitle>Verifications per day</CardTitle></CardHeader>
        <CardContent><StackedDayBars title="Verifications per day by outcome" days={data.verificationsPerDay} series={OUTCOMES} /></CardContent>
      </Card>
      <Card>
        <CardHeader><CardTitle>Alt links per day</CardTitle></CardHeader>
        <CardContent><StackedDayBars title="Alt links per day by confidence" days={data.altLinksPerDay} series={CONFIDENCES} /></CardContent>
      </Card>
      <Card>
        <CardHeader><CardTitle>VPN</CardTitle></CardHeader>
        <CardContent>
          <p>
            {data.vpn.vpnAttempts} of {data.vpn.attempts} attempts through a VPN ({vpnShare}%)
          </p>
          {data.vpn.providers.length === 0 ? (
            <p className="text-muted">No VPN provider seen.</p>
          ) : (
            <ul className="mt-2 space-y-1 text-sm">
              {data.vpn.providers.map((p) => (
                <li key={p.provider} className="flex justify-between gap-2"><span className="truncate">{p.provider}</span><span>{p.attempts}</span></li>
              ))}
            </ul>
          )}
        </CardContent>
      </Card>
      <Card>
        <CardHeader><CardTitle>Raid alarms per day</CardTitle></CardHeader>
        <CardContent><StackedDayBars title="Raid alarms per day" days={raidDays} series={[{ key: 'alarms', label: 'Raid alarms', color: '#7c3aed' }]} /></CardContent>
      </Card>
    </div>
  );
}
