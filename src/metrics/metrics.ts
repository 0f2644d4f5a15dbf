import express, { type Router } from 'express';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { ROUTE_FAMILIES, type RouteFamily } from '../discord/invalid-requests';
import { metricsAccess } from './metrics-access';

/**
 * Prometheus metrics, one registry per server so tests stay isolated. `invalidRequests` reads
 * the Discord invalid-answer count by route family; it is read at each scrape, so a count
 * whose answers have left the 10-minute window reads lower without a new answer.
 */
export function createMetrics(options: { defaultMetrics?: boolean; invalidRequests?: () => Record<RouteFamily, number> } = {}) {
  const readInvalidRequests = options.invalidRequests;
  const registry = new Registry();
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry, prefix: 'gatekeeper_' });
  const metrics = {
    registry,
    verifications: new Counter({
      name: 'gatekeeper_verifications_total',
      help: 'Completed website verifications by outcome',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    altDetections: new Counter({
      name: 'gatekeeper_alt_detections_total',
      help: 'Alt links found by confidence',
      labelNames: ['confidence'] as const,
      registers: [registry],
    }),
    vpnChecks: new Counter({
      name: 'gatekeeper_vpn_checks_total',
      help: 'VPN/proxy checks by verdict and source',
      labelNames: ['verdict', 'source'] as const,
      registers: [registry],
    }),
    vpnLatency: new Histogram({
      name: 'gatekeeper_vpn_check_seconds',
      help: 'Time to get a VPN verdict',
      buckets: [0.005, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    outboxDepth: new Gauge({
      name: 'gatekeeper_outbox_depth',
      help: 'Discord actions waiting, running or failed',
      labelNames: ['status'] as const,
      registers: [registry],
    }),
    outboxResults: new Counter({
      name: 'gatekeeper_outbox_results_total',
      help: 'Discord action results',
      labelNames: ['kind', 'result'] as const,
      registers: [registry],
    }),
    discordRateLimits: new Counter({
      name: 'gatekeeper_discord_rate_limits_total',
      help: 'Rate-limit waits reported by the Discord REST client',
      labelNames: ['global'] as const,
      registers: [registry],
    }),
    discordInvalidRequests: new Gauge({
      name: 'gatekeeper_discord_invalid_requests',
      help: 'Discord answers of 401, 403 or 429 (not scope shared) in the last 10 minutes, by route family (Discord bans the address at 10,000)',
      labelNames: ['family'] as const,
      registers: [registry],
      collect() {
        if (!readInvalidRequests) return;
        const byFamily = readInvalidRequests();
        for (const family of ROUTE_FAMILIES) this.set({ family }, byFamily[family]);
      },
    }),
    interactions: new Counter({
      name: 'gatekeeper_interactions_total',
      help: 'Discord interactions by result',
      labelNames: ['result'] as const,
      registers: [registry],
    }),
    jobs: new Counter({
      name: 'gatekeeper_jobs_total',
      help: 'Scheduled job runs (retention purge, audit check, backup) by job and result',
      labelNames: ['job', 'result'] as const,
      registers: [registry],
    }),
    raidAlarms: new Counter({
      name: 'gatekeeper_raid_alarms_total',
      help: 'Raid alarms raised, by the first threshold crossed',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
  };
  return metrics;
}

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * GET /metrics in the Prometheus text format; `refresh` updates gauges read from the
 * database. `token` (METRICS_TOKEN) opens it to bearer-token callers; without one it answers loopback only.
 */
export function metricsRouter(metrics: Metrics, refresh?: () => Promise<void>, token?: string): Router {
  const router = express.Router();
  router.get('/metrics', metricsAccess(token), async (_req, res) => {
    try {
      await refresh?.();
    } catch {
      // a gauge that cannot be read now keeps its last value
    }
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.send(await metrics.registry.metrics());
  });
  return router;
}
