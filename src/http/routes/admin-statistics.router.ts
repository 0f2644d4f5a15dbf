import { z } from 'zod';
import { STATISTICS_PERIODS, type StatisticsPeriod, type StatisticsService } from '../../modules/statistics';
import { validate } from '../middleware/validate';
import { validated, type StaffRoute } from './staff-route-table';

export const statisticsQuery = z.object({
  days: z
    .enum(STATISTICS_PERIODS.map(String) as [string, ...string[]], { error: `days must be one of: ${STATISTICS_PERIODS.join(', ')}` })
    .default('30')
    .transform((d) => Number(d) as StatisticsPeriod),
});

/** GET /api/admin/statistics?days=7|30|90 (staff). */
export function adminStatisticsRoutes(deps: { statistics: StatisticsService }): StaffRoute[] {
  return [
    {
      method: 'get',
      path: '/admin/statistics',
      access: 'staff',
      handlers: [
        validate(statisticsQuery, 'query'),
        async (req, res) => {
          res.json(await deps.statistics.read(validated(req, statisticsQuery, 'query').days));
        },
      ],
    },
  ];
}
