import { createInvalidRequests } from '../discord/invalid-requests';
import { createMetrics } from './metrics';

/** The gauge's value for one family in a scrape of the registry. */
async function scrapedInvalid(metrics: ReturnType<typeof createMetrics>, family: string): Promise<number> {
  const text = await metrics.registry.metrics();
  const match = new RegExp(`^gatekeeper_discord_invalid_requests\\{family="${family}"\\} (\\d+)$`, 'm').exec(text);
  return match ? Number(match[1]) : Number.NaN;
}

describe('gatekeeper_discord_invalid_requests', () => {
  it('reads the count at each scrape: answers that left the window are gone without a new answer', async () => {
    let now = 1_000_000;
    const invalid = createInvalidRequests({ limit: 100, windowMs: 60_000, now: () => now });
    const metrics = createMetrics({ invalidRequests: () => invalid.snapshot().byFamily });
    invalid.record('messages', 403);
    invalid.record('messages', 429, 'user');
    invalid.record('oauth-token', 401);
    expect(await scrapedInvalid(metrics, 'messages')).toBe(2);
    expect(await scrapedInvalid(metrics, 'oauth-token')).toBe(1);
    expect(await scrapedInvalid(metrics, 'member-roles')).toBe(0);

    now += 30_000;
    invalid.record('messages', 403);
    expect(await scrapedInvalid(metrics, 'messages')).toBe(3);

    // the first three leave the window; nothing new is recorded before the scrape
    now += 31_000;
    expect(await scrapedInvalid(metrics, 'messages')).toBe(1);
    expect(await scrapedInvalid(metrics, 'oauth-token')).toBe(0);
    now += 30_000;
    expect(await scrapedInvalid(metrics, 'messages')).toBe(0);
  });

  it('has every family at 0 before any answer', async () => {
    const invalid = createInvalidRequests();
    const metrics = createMetrics({ invalidRequests: () => invalid.snapshot().byFamily });
    for (const family of ['oauth-token', 'users-me', 'guild-members', 'member-roles', 'messages', 'interactions', 'other'])
      expect(await scrapedInvalid(metrics, family)).toBe(0);
  });
});
