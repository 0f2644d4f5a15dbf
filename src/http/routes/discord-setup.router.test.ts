import type { Request, Response } from 'express';
import { discordSetupRoutes } from './discord-setup.router';

/** Runs the route's handler and returns the JSON it answered. */
async function answer(routes: ReturnType<typeof discordSetupRoutes>): Promise<unknown> {
  let body: unknown;
  const res = { json: (value: unknown) => (body = value) } as unknown as Response;
  const handler = routes[0]!.handlers[0] as (req: Request, res: Response) => Promise<void>;
  await handler({} as Request, res);
  return body;
}

describe('GET /api/admin/discord-setup', () => {
  const report = { checkedAt: '2026-11-28T10:00:00.000Z', problems: [] };

  it("adds the bot's standing with Discord: the token's state and the invalid-request count", async () => {
    const token = {
      status: 'rejected' as const,
      since: '2026-11-28T09:59:00.000Z',
      nextProbeAt: '2026-11-28T10:00:05.000Z',
      fix: 'Reset the token.',
    };
    const invalidRequests = {
      total: 12,
      limit: 10_000,
      windowMs: 600_000,
      byFamily: { 'oauth-token': 0, 'users-me': 12, 'guild-members': 0, 'member-roles': 0, messages: 0, interactions: 0, other: 0 },
      budget: 'open' as const,
    };
    const body = await answer(
      discordSetupRoutes({ discordSetup: { current: async () => report, standing: () => ({ token, invalidRequests }) } }),
    );
    expect(body).toEqual({ ...report, error: null, token, invalidRequests, waiting: null });
  });

  it('adds the Discord actions waiting for a fix, by reason', async () => {
    const waiting = { count: 3, reasons: [{ message: 'Waiting for a fix (403 50013: Missing Permissions): …', count: 3 }] };
    const body = await answer(discordSetupRoutes({ discordSetup: { current: async () => report, waiting: async () => waiting } }));
    expect(body).toMatchObject({ waiting });
  });

  it('answers null for both without a bot in the process', async () => {
    expect(await answer(discordSetupRoutes({ discordSetup: { current: async () => report } }))).toEqual({
      ...report,
      error: null,
      token: null,
      invalidRequests: null,
      waiting: null,
    });
  });
});
