import type { Database } from '../../db/client';
import type { Env } from '../../env';
import { createSettingsService, type SettingsService, SETTINGS_TTL_MS, type GuildNamesCheck, type SettingsView } from './settings.service';

export { createSettingsService, SETTINGS_TTL_MS, type GuildNamesCheck, type SettingsService, type SettingsView };
export { defaultSettings, settingsChangeSchema, type OwnerSettings, type SettingsChange, ROLE_ID_DIGITS } from './settings.schema';
export { createGuildNamesCheck } from './guild-names-check';

const services = new WeakMap<object, SettingsService>();

/**
 * The one settings service of a server context: the routes, the bot, the jobs and the
 * public config of one process share its copy of the settings.
 */
export function settingsFor(ctx: { env: Env; database: Database; clock: { now(): Date } }): SettingsService {
  let service = services.get(ctx);
  if (!service) {
    service = createSettingsService({ database: ctx.database, env: ctx.env, clock: ctx.clock });
    services.set(ctx, service);
  }
  return service;
}
