import { DefaultRestOptions, REST, type RESTOptions } from '@discordjs/rest';
import { Client, GatewayIntentBits, type ClientOptions } from 'discord.js';
import type { DiscordEmulator } from './emulator';

/** The intents the Gatekeeper bot uses (guild structure + member events); override per test when needed. */
export const DEFAULT_TEST_INTENTS = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers];

/** discord.js client options that point the unmodified client at the emulator. */
export function emulatorClientOptions(emulator: DiscordEmulator, options: Partial<ClientOptions> = {}): ClientOptions {
  return { intents: DEFAULT_TEST_INTENTS, ...options, rest: { makeRequest: realmSafeMakeRequest, ...options.rest, api: emulator.apiBase } };
}

/** A discord.js Client logged in to the emulator and past `ready` (guild cached). */
export async function loginEmulatorClient(emulator: DiscordEmulator, options: Partial<ClientOptions> = {}): Promise<Client<true>> {
  const client = new Client(emulatorClientOptions(emulator, options));
  const ready = new Promise<Client<true>>((resolve) => client.once('clientReady', resolve));
  await client.login(emulator.application.botToken);
  return ready;
}

/**
 * Under jest, a timed-out request fails with Node's own DOMException, which is not an `Error` of the test's realm, so
 * @discordjs/rest does not recognise the AbortError and rethrows instead of retrying. This re-throws it as a realm-local
 * Error so timeouts (the emulator's `hang` fault) are retried as they are in production.
 */
export const realmSafeMakeRequest: RESTOptions['makeRequest'] = async (url, init) => {
  try {
    return await DefaultRestOptions.makeRequest(url, init);
  } catch (error) {
    if (error instanceof Error) throw error;
    const foreign = error as { name?: string; message?: string };
    throw Object.assign(new Error(foreign.message ?? String(error)), { name: foreign.name ?? 'Error' });
  }
};

/** An @discordjs/rest instance for the emulator, authenticated as the bot unless told otherwise. */
export function createEmulatorRest(
  emulator: DiscordEmulator,
  token: string | null = emulator.application.botToken,
  options: Partial<RESTOptions> = {},
): REST {
  const rest = new REST({ makeRequest: realmSafeMakeRequest, ...options, api: emulator.apiBase });
  if (token) rest.setToken(token);
  return rest;
}
