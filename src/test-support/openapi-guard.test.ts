import { discordUserAgent } from '../discord-user-agent';
import { createDiscordEmulator } from '../discord-emulator';
import { takeProductViolationReport } from './openapi-guard';

describe('the OpenAPI guard', () => {
  it("reports what the product sent against Discord's description, not a test's probes nor what Discord ignores", async () => {
    const emulator = await createDiscordEmulator({ rateLimits: false, seed: 'empty' });
    try {
      const send = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
        fetch(`${emulator.apiBase}/v10${path}`, {
          method,
          headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      const product = {
        'User-Agent': `DiscordBot (https://discord.js.org, 2.6.3) ${discordUserAgent()} Node.js/20`,
        Authorization: `Bot ${emulator.application.botToken}`,
      };
      await send('PUT', `/guilds/${emulator.guild.id}/bans/1`, product, { delete_message_seconds: 'a week' });
      // a test's probe: Node's fetch sends `User-Agent: node`, and no Authorization
      await send('GET', `/guilds/${emulator.guild.id}`, {});
      // an undocumented query parameter is a note (Discord ignores it), not a failure
      await send('GET', `/channels/${emulator.createChannel('checks').id}/messages?limit=5&colour=red`, product);

      const report = takeProductViolationReport();
      expect(report).toContain('PUT /guilds/{guild_id}/bans/{user_id}: body delete_message_seconds');
      expect(report).not.toContain('GET /guilds/{guild_id}:');
      expect(report).not.toContain('colour');
      expect(takeProductViolationReport()).toBeNull();
    } finally {
      await emulator.close();
    }
  });
});
