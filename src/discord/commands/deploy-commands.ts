import type { Env } from '../../env';
import { createBotRest } from '../discord-rest';
import { registerCommands } from './register-commands';

/**
 * `npm run deploy-commands`: registers the slash commands with Discord for the configured
 * guild (guild commands appear at once). In sandbox mode there is nothing to deploy: the
 * server registers them with its emulator at start-up.
 */
export async function deployCommands(env: Env, write: (line: string) => void): Promise<number> {
  if (env.sandbox) {
    write(
      'gatekeeper: sandbox mode (no DISCORD_BOT_TOKEN): slash commands are registered automatically with the emulator at start-up; nothing to deploy.',
    );
    return 0;
  }
  // parseEnv refuses a bot token without these three, so they are present here
  const rest = createBotRest({ apiBase: env.DISCORD_API_URL, botToken: env.DISCORD_BOT_TOKEN!, timeoutMs: 30_000 });
  const count = await registerCommands(rest, { applicationId: env.DISCORD_CLIENT_ID!, guildId: env.DISCORD_GUILD_ID! });
  write(`gatekeeper: ${count} slash command(s) registered for guild ${env.DISCORD_GUILD_ID}.`);
  return count;
}
