import { Routes } from 'discord-api-types/v10';
import type { REST } from '@discordjs/rest';
import { createDiscordEmulator, type DiscordEmulator } from './emulator';
import { createEmulatorRest } from './emulator/emulator-clients';
import { createBotRest, GLOBAL_REQUESTS_PER_SECOND } from './discord-rest';

describe('the bot’s share of Discord’s global limit', () => {
  it('keeps both of the bot’s clients together below 50 requests/s, with room for windows that do not line up', () => {
    const together = GLOBAL_REQUESTS_PER_SECOND.rest + GLOBAL_REQUESTS_PER_SECOND.gatewayClient;
    expect(together).toBeLessThanOrEqual(45);
  });

  it('paces the REST client at its share', () => {
    const rest = createBotRest({ apiBase: 'http://127.0.0.1:9/api', botToken: 'token' });
    expect(rest.options.globalRequestsPerSecond).toBe(GLOBAL_REQUESTS_PER_SECOND.rest);
  });
});

describe('a cold start on a route (its bucket not learnt yet)', () => {
  let emulator: DiscordEmulator | undefined;
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  /**
   * A raid's first moments: ten Modify Guild Member calls at once on a route the client has
   * never called, then five more as soon as the first is answered (the outbox's workers
   * take new actions as they go). Discord's shape, 5 per window, with a 2 s window: long
   * enough that a busy machine's stalls cannot spread the first window's calls over two.
   */
  async function coldBurst(makeRest: (discord: DiscordEmulator) => REST): Promise<{ limited: number; answered: number }> {
    const discord = await createDiscordEmulator({ rateLimits: { buckets: { 'member-edit': { limit: 5, windowMs: 2000 } } } });
    emulator = discord;
    const rest = makeRest(discord);
    const users = Array.from({ length: 15 }, (_, i) => discord.createUser({ username: `cold-${i}` }).id);
    for (const id of users) discord.addGuildMember(id);
    const roles = [discord.guild.roleId('Verified')];
    const edit = (id: string) => rest.patch(Routes.guildMember(discord.guild.id, id), { body: { roles } });
    const [first, ...others] = users.slice(0, 10).map(edit);
    await Promise.allSettled([first]);
    const later = users.slice(10).map(edit);
    const outcomes = await Promise.allSettled([first, ...others, ...later]);
    expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
    return { limited: discord.state.rateLimitHits, answered: discord.state.requests({ status: 200 }).filter((r) => r.method === 'PATCH').length };
  }

  it('draws a 429 from @discordjs/rest as it comes: the calls after the first answer run in a second queue', async () => {
    const plain = await coldBurst((discord) => createEmulatorRest(discord));
    expect(plain.answered).toBe(15);
    expect(plain.limited).toBeGreaterThan(0);
  }, 30_000);

  it('draws none from the bot’s client, which sends the first call alone', async () => {
    const bot = await coldBurst((discord) => createBotRest({ apiBase: discord.apiBase, botToken: discord.application.botToken, timeoutMs: 5000 }));
    expect(bot.answered).toBe(15);
    expect(bot.limited).toBe(0);
  }, 30_000);
});
