import type { Database } from '../../db/client';
import { retryOnConflict } from '../../db/transaction-retry';
import type { Env } from '../../env';
import { BadRequest } from '../../errors';
import { ROLE_SLOT_NAMES, ROLE_SLOTS, roleSafetyProblems, type RoleProblem, type RoleSlot } from '../../discord/role-safety';
import { appendAudit, type AuditActor } from '../audit';
import { lockStoredSettings, readStoredSettings, writeStoredSettings } from './settings.repository';
import {
  CHANNEL_SETTING_KEYS,
  defaultSettings,
  effectiveSettings,
  ROLE_SETTING_KEYS,
  SETTING_KEYS,
  validStored,
  type OwnerSettings,
  type SettingKey,
  type SettingsChange,
  type StoredSettings,
} from './settings.schema';

/** Whether a role or channel name (or id) exists in the server; null when it cannot be told (Discord unreachable). */
export interface GuildNamesCheck {
  /** the server's id, which is also the id of its @everyone role */
  guildId?: string;
  exists(kind: 'role' | 'channel', nameOrId: string): Promise<boolean | null>;
  /** the role choices refused (role-safety.ts) for these configured roles, read from the server; null when it cannot be told */
  refusedRoles?(configured: Record<RoleSlot, string>): Promise<RoleProblem[] | null>;
}

export interface SettingsView {
  version: number;
  updatedAt: Date | null;
  effective: OwnerSettings;
  defaults: OwnerSettings;
  /** only the values stored from the dashboard */
  stored: StoredSettings;
}

/** How long a process trusts its copy before it reads the row again. */
export const SETTINGS_TTL_MS = 2_000;

/**
 * The effective settings for this process. `snapshot()` answers at once from the copy
 * (and refreshes it in the background once it is older than the TTL), so every process
 * sees a change made elsewhere within a few seconds; a change made here applies at once.
 */
export function createSettingsService(deps: {
  database: Database;
  env: Env;
  clock: { now(): Date };
  ttlMs?: number;
  monotonicNow?: () => number;
}) {
  const defaults = defaultSettings(deps.env);
  const ttl = deps.ttlMs ?? SETTINGS_TTL_MS;
  const monotonic = deps.monotonicNow ?? (() => performance.now());
  let view: SettingsView = { version: 0, updatedAt: null, effective: defaults, defaults, stored: {} };
  let loadedAt = Number.NEGATIVE_INFINITY;
  let loading: Promise<SettingsView> | undefined;

  function install(version: number, values: unknown, updatedAt: Date | null): SettingsView {
    const stored = validStored(values);
    view = { version, updatedAt, effective: effectiveSettings(defaults, stored), defaults, stored };
    loadedAt = monotonic();
    return view;
  }

  function refresh(): Promise<SettingsView> {
    loading ??= (async () => {
      try {
        const row = await readStoredSettings(deps.database.db);
        // a write made here meanwhile may be newer than what this read saw
        return row.version >= view.version ? install(row.version, row.values, row.updatedAt) : view;
      } finally {
        loading = undefined;
      }
    })();
    return loading;
  }

  const stale = () => monotonic() - loadedAt > ttl;

  async function checkGuildNames(change: SettingsChange, guild: GuildNamesCheck | undefined): Promise<void> {
    if (!guild) return;
    const checks: [SettingKey, 'role' | 'channel'][] = [
      ...ROLE_SETTING_KEYS.map((k) => [k, 'role'] as [SettingKey, 'role']),
      ...CHANNEL_SETTING_KEYS.map((k) => [k, 'channel'] as [SettingKey, 'channel']),
    ];
    for (const [key, kind] of checks) {
      const value = change[key];
      if (typeof value !== 'string') continue;
      const found = await guild.exists(kind, value);
      if (found === false) throw BadRequest(`The ${kind} '${value}' does not exist in the Discord server`, key);
    }
  }

  /** The role to ping must be a role of the server, and not @everyone (whose id is the server's). */
  async function checkPingRole(change: SettingsChange, guild: GuildNamesCheck | undefined): Promise<void> {
    const value = change.alarmPingRole;
    if (typeof value !== 'string') return;
    if (value === (guild?.guildId ?? deps.env.DISCORD_GUILD_ID))
      throw BadRequest('The role to ping cannot be @everyone: choose a role your staff hold', 'alarmPingRole');
    if ((await guild?.exists('role', value)) === false)
      throw BadRequest(`The role to ping (id ${value}) does not exist in the Discord server`, 'alarmPingRole');
  }

  /**
   * Refuses a change of a role setting that would make a dangerous choice (role-safety.ts): the
   * roles as they would be after it, checked against the server when it answers, else by their
   * names alone (one role in two slots). Only problems of a slot this change sets are refused, so
   * fixing one role is never blocked by another still wrong.
   */
  async function checkRoleSafety(change: SettingsChange, guild: GuildNamesCheck | undefined): Promise<void> {
    const changed = ROLE_SLOTS.filter((slot) => ROLE_SLOT_NAMES[slot].settingKey in change);
    if (changed.length === 0) return;
    const after = { ...(await refresh()).effective };
    for (const slot of changed) {
      const key = ROLE_SLOT_NAMES[slot].settingKey;
      const value = change[key];
      after[key] = value === null ? defaults[key] : (value ?? after[key]);
    }
    const configured = Object.fromEntries(ROLE_SLOTS.map((slot) => [slot, after[ROLE_SLOT_NAMES[slot].settingKey]])) as Record<
      RoleSlot,
      string
    >;
    const problems =
      (await guild?.refusedRoles?.(configured)) ??
      roleSafetyProblems({ guild: { guildId: '', ownerId: '', roles: [] }, bot: null, configured });
    const refused = problems.find((p) => p.slots.some((slot) => changed.includes(slot)));
    if (!refused) return;
    const slot = refused.slots.find((s) => changed.includes(s))!;
    throw BadRequest(`${refused.problem} ${refused.fix}`, ROLE_SLOT_NAMES[slot].settingKey);
  }

  return {
    defaults,
    /** The settings as this process knows them now (never waits). */
    snapshot(): OwnerSettings {
      if (stale()) void refresh().catch(() => undefined);
      return view.effective;
    },
    /** The settings, read again first when the copy is older than the TTL. */
    async current(): Promise<OwnerSettings> {
      if (stale()) await refresh();
      return view.effective;
    },
    async view(): Promise<SettingsView> {
      return refresh();
    },
    refresh,
    /**
     * Applies a validated change in one transaction (the row is locked, so of two
     * concurrent writers the later one wins and both are audited with the values they
     * replaced). Role and channel names are checked against the server first.
     */
    async update(actor: AuditActor, change: SettingsChange, guild?: GuildNamesCheck): Promise<SettingsView> {
      await checkGuildNames(change, guild);
      await checkPingRole(change, guild);
      await checkRoleSafety(change, guild);
      const now = deps.clock.now();
      const written = await retryOnConflict(() =>
        deps.database.db.transaction(async (tx) => {
          const row = await lockStoredSettings(tx);
          const before = validStored(row.values);
          const after: Record<string, unknown> = { ...before };
          for (const key of SETTING_KEYS) {
            if (!(key in change)) continue;
            const value = change[key];
            if (value === null) delete after[key];
            else if (value !== undefined) after[key] = value;
          }
          const oldEffective = effectiveSettings(defaults, before);
          const newEffective = effectiveSettings(defaults, after as StoredSettings);
          const changes: Record<string, { old: unknown; new: unknown; stored: boolean }> = {};
          for (const key of SETTING_KEYS)
            if (key in change) changes[key] = { old: oldEffective[key], new: newEffective[key], stored: key in after };
          const version = row.version + 1;
          await writeStoredSettings(tx, version, after, now);
          await appendAudit(
            tx,
            { actor, action: 'settings.updated', targetType: 'settings', targetId: String(version), details: { version, changes } },
            now,
          );
          return { version, after };
        }),
      );
      return install(written.version, written.after, now);
    },
  };
}

export type SettingsService = ReturnType<typeof createSettingsService>;
