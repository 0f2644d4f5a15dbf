import { z } from 'zod';
import type { Clock } from '../../clock';
import type { Database } from '../../db/client';
import { readStatistics, STATISTICS_PERIODS, type StatisticsPeriod } from '../../modules/statistics/statistics.repository';
import { validate } from '../middleware/validate';
import { validated, type StaffRoute } from './staff-route';

export const statisticsQuery = z.object({
  days: z
    .enum(STATISTICS_PERIODS.map(String) as [string, ...string[]], { error: `days must be one of: ${STATISTICS_PERIODS.join(', ')}` })
    .default('30')
    .transform((d) => Number(d) as StatisticsPeriod),
});

/** GET /api/admin/statistics?days=7|30|90 (staff). */
export function adminStatisticsRoutes(deps: { database: Database; clock: Clock }): StaffRoute[] {
  return [
    {
      method: 'get',
      path: '/admin/statistics',
      access: 'staff',
      handlers: [
        validate(statisticsQuery, 'query'),
        async (req, res) => {
          res.json(await readStatistics(deps.database.db, deps.clock.now(), validated(req, statisticsQuery, 'query').days));
        },
      ],
    },
  ];
}
