import type { Env } from '../env';
import type { Logger } from '../logger';
import { createDiscordEmulator, type DiscordEmulator, type DiscordEmulatorOptions } from '../discord-emulator';
import { createProxycheckEmulator, SANDBOX_VPN_IP, type ProxycheckEmulator } from '../modules/vpn';

/** Where Discord (real or emulated) and the proxy-check service are, and the app's credentials. */
export interface DiscordConnection {
  sandbox: boolean;
  apiBase: string;
  /** origin of the OAuth2 authorize page */
  authorizeBase: string;
  clientId: string;
  clientSecret: string;
  botToken: string;
  guildId: string;
  proxycheckUrl: string;
  proxycheckKey?: string;
  /** https link (or sandbox page) to a channel */
  channelWebUrl(channelId: string): string;
  /** sandbox: the address a fake user "on a VPN" appears to come from */
  simulatedIpFor?(discordId: string): string | null;
  emulator?: DiscordEmulator;
  proxycheck?: ProxycheckEmulator;
  close(): Promise<void>;
}

/** Real Discord from the environment, or (sandbox mode) the in-process emulators. */
export async function connectDiscord(
  env: Env,
  logger: Logger,
  options: {
    emulatorPort?: number;
    redirectUri?: string;
    interactionAckTimeoutMs?: number;
    emulatorLimits?: Pick<DiscordEmulatorOptions, 'rateLimits' | 'invalidRequestLimit'>;
  } = {},
): Promise<DiscordConnection> {
  if (!env.sandbox) {
    return {
      sandbox: false,
      apiBase: env.DISCORD_API_URL,
      authorizeBase: new URL(env.DISCORD_API_URL).origin,
      clientId: env.DISCORD_CLIENT_ID!,
      clientSecret: env.DISCORD_CLIENT_SECRET!,
      botToken: env.DISCORD_BOT_TOKEN!,
      guildId: env.DISCORD_GUILD_ID!,
      proxycheckUrl: env.PROXYCHECK_URL,
      proxycheckKey: env.PROXYCHECK_API_KEY,
      channelWebUrl: (channelId) => `https://discord.com/channels/${env.DISCORD_GUILD_ID}/${channelId}`,
      close: async () => undefined,
    };
  }
  const port = options.emulatorPort ?? env.SANDBOX_DISCORD_PORT;
  const host = env.HOST === '0.0.0.0' || env.HOST === '::' ? '127.0.0.1' : env.HOST;
  // only our own callback may receive codes: the emulator must not become an open redirect
  // the logger hears the emulator's own errors and each request that departs from Discord's API description (a warning)
  const emulator = await createDiscordEmulator({
    port,
    host,
    publicUrl: port ? `http://localhost:${port}` : undefined,
    redirectUris: options.redirectUri ? [options.redirectUri] : undefined,
    interactionAckTimeoutMs: options.interactionAckTimeoutMs,
    logger,
    ...options.emulatorLimits,
  });
  const proxycheck = await createProxycheckEmulator();
  logger.info({ discord: emulator.url }, 'sandbox mode: Discord and proxycheck.io are emulated in-process');
  return {
    sandbox: true,
    apiBase: emulator.apiBase,
    authorizeBase: emulator.url,
    clientId: emulator.application.clientId,
    clientSecret: emulator.application.clientSecret,
    botToken: emulator.application.botToken,
    guildId: emulator.guild.id,
    proxycheckUrl: proxycheck.url,
    channelWebUrl: (channelId) => emulator.sandboxUrl(channelId),
    simulatedIpFor: (discordId) => (emulator.getUser(discordId)?.onVpn ? SANDBOX_VPN_IP : null),
    emulator,
    proxycheck,
    close: async () => {
      await emulator.close();
      await proxycheck.close();
    },
  };
}
