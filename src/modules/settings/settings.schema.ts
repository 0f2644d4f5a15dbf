import { z } from 'zod';
import type { Env } from '../../env';
import {
  CERTAIN_ALT_ACTIONS,
  DISCORD_NAME_MAX,
  HOLD_ACTIONS,
  LOCKDOWN_VERIFICATION_LEVELS,
  SETTING_NUMBER_BOUNDS,
  VPN_CHECK_FAILURE_POLICIES,
  type NumberSettingKey,
  type OwnerSettings as SharedOwnerSettings,
} from '../../shared/settings-contract';

/**
 * The owner's settings: every policy the server owner can change from the dashboard
 * without a restart. Each has a default: the environment variable where one exists,
 * otherwise the constant below. A value stored from the dashboard overrides the default;
 * clearing it (null) falls back to the default again.
 */

const whole = (name: string, key: NumberSettingKey) => {
  const { min, max } = SETTING_NUMBER_BOUNDS[key];
  return z
    .number({ error: `${name} must be a number` })
    .int(`${name} must be a whole number`)
    .min(min, `${name} must be at least ${min}`)
    .max(max, `${name} must be at most ${max}`);
};

const choice = <T extends string>(name: string, values: readonly [T, ...T[]]) =>
  z.enum(values, { error: `${name} must be one of: ${values.join(', ')}` });

const discordName = (name: string) =>
  z
    .string({ error: `${name} must be text` })
    .trim()
    .min(1, `${name} cannot be empty`)
    .max(DISCORD_NAME_MAX, `${name} must be at most ${DISCORD_NAME_MAX} characters`);

/** How many digits a role id (a snowflake) has. */
export const ROLE_ID_DIGITS = { min: 17, max: 20 } as const;

/** A role given by its id (a snowflake), as Discord's mention `<@&id>` needs it. */
const roleId = (name: string) =>
  z
    .string({ error: `${name} must be a role id` })
    .trim()
    .regex(
      new RegExp(`^\\d{${ROLE_ID_DIGITS.min},${ROLE_ID_DIGITS.max}}$`),
      `${name} must be a role id (${ROLE_ID_DIGITS.min} to ${ROLE_ID_DIGITS.max} digits)`,
    );

export const settingsShape = {
  retentionDays: whole('Retention days', 'retentionDays'),
  vpnCheckFailure: choice('VPN check failure policy', VPN_CHECK_FAILURE_POLICIES),
  certainAltAction: choice('Certain-alt action', CERTAIN_ALT_ACTIONS),
  /** 0 turns the account-age gate off */
  accountAgeMinDays: whole('Minimum account age', 'accountAgeMinDays'),
  accountAgeAction: choice('Account-age action', HOLD_ACTIONS),
  /** the raid alarm looks at the verifications of the last this-many minutes */
  raidWindowMinutes: whole('Raid window', 'raidWindowMinutes'),
  /** fewer verifications than this in the window never raise the alarm */
  raidMinVerifications: whole('Raid minimum verifications', 'raidMinVerifications'),
  /** the window's count against the average window of the previous 24 hours */
  raidRateFactor: whole('Raid rate factor', 'raidRateFactor'),
  /** accounts younger than this many days count as young for the alarm */
  raidYoungAccountDays: whole('Young account age', 'raidYoungAccountDays'),
  raidYoungAccountPercent: whole('Raid young-account share', 'raidYoungAccountPercent'),
  raidSharedEvidencePercent: whole('Raid shared device/address share', 'raidSharedEvidencePercent'),
  autoLockdown: z.boolean({ error: 'Auto-lockdown must be true or false' }),
  lockdownAction: choice('Lockdown action', HOLD_ACTIONS),
  /** during a lockdown, Discord pauses invites to the server (Modify Guild Incident Actions; needs Manage Server) */
  lockdownPauseInvites: z.boolean({ error: 'Pause invites during lockdown must be true or false' }),
  /** during a lockdown, Discord also pauses direct messages between members who are not friends */
  lockdownPauseDms: z.boolean({ error: 'Pause direct messages during lockdown must be true or false' }),
  /** during a lockdown, Discord's verification level is raised to this one and put back after it ('off': left alone; needs Manage Server) */
  lockdownVerificationLevel: choice('Verification level during lockdown', LOCKDOWN_VERIFICATION_LEVELS),
  /** "Verified with Gatekeeper" as a Linked Role requirement (role-connection metadata; the /linked-roles sign-in) */
  linkedRoles: z.boolean({ error: 'Linked Roles must be true or false' }),
  verifiedRole: discordName('Verified role'),
  limitedRole: discordName('Limited Access role'),
  unverifiedRole: discordName('Unverified role'),
  staffRole: discordName('Staff role'),
  verificationChannel: discordName('Verification channel'),
  logsChannel: discordName('Logs channel'),
  /** the role pinged by the #logs posts of a certain alt and of a raid alarm; null pings nobody */
  alarmPingRole: roleId('Role to ping').nullable(),
};

export const settingsSchema = z.object(settingsShape);
export type OwnerSettings = z.infer<typeof settingsSchema>;
/** The schema and the contract the web reads describe the same settings (a compile error otherwise). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const schemaMatchesContract: Same<OwnerSettings, SharedOwnerSettings> = true;
void schemaMatchesContract;
export type SettingKey = keyof OwnerSettings;
export const SETTING_KEYS = Object.keys(settingsShape) as SettingKey[];

export const ROLE_SETTING_KEYS = ['verifiedRole', 'limitedRole', 'unverifiedRole', 'staffRole'] as const satisfies readonly SettingKey[];
export const CHANNEL_SETTING_KEYS = ['verificationChannel', 'logsChannel'] as const satisfies readonly SettingKey[];

/** A change request: any subset of the settings; null removes the stored value (back to the default). */
export const settingsChangeSchema = z
  .strictObject(
    Object.fromEntries(SETTING_KEYS.map((key) => [key, settingsShape[key].nullable().optional()])) as {
      [K in SettingKey]: z.ZodOptional<z.ZodNullable<(typeof settingsShape)[K]>>;
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys' ? `Unknown setting: ${issue.keys.join(', ')}` : 'Settings must be a JSON object',
    },
  )
  .refine((change) => Object.keys(change).length > 0, 'No settings to change');
export type SettingsChange = z.infer<typeof settingsChangeSchema>;

/** The defaults: environment variables where the product has one, else fixed values. */
export function defaultSettings(env: Env): OwnerSettings {
  return {
    retentionDays: env.RETENTION_DAYS,
    vpnCheckFailure: env.VPN_CHECK_FAILURE,
    certainAltAction: env.CERTAIN_ALT_ACTION,
    accountAgeMinDays: 0,
    accountAgeAction: 'limited',
    raidWindowMinutes: 10,
    raidMinVerifications: 10,
    raidRateFactor: 5,
    raidYoungAccountDays: 7,
    raidYoungAccountPercent: 50,
    raidSharedEvidencePercent: 30,
    autoLockdown: false,
    lockdownAction: 'limited',
    lockdownPauseInvites: true,
    lockdownPauseDms: false,
    lockdownVerificationLevel: 'off',
    linkedRoles: false,
    verifiedRole: env.DISCORD_VERIFIED_ROLE,
    limitedRole: env.DISCORD_LIMITED_ROLE,
    unverifiedRole: env.DISCORD_UNVERIFIED_ROLE,
    staffRole: env.DISCORD_STAFF_ROLE,
    verificationChannel: env.DISCORD_VERIFICATION_CHANNEL,
    logsChannel: env.DISCORD_LOGS_CHANNEL,
    alarmPingRole: null,
  };
}

export type StoredSettings = Partial<OwnerSettings>;

/**
 * The stored values that are still valid, one by one: a value the current rules reject
 * (written by an older version) is ignored and the default applies.
 */
export function validStored(raw: unknown): StoredSettings {
  if (!raw || typeof raw !== 'object') return {};
  const stored: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    const value = (raw as Record<string, unknown>)[key];
    if (value === undefined || value === null) continue;
    const parsed = settingsShape[key].safeParse(value);
    if (parsed.success) stored[key] = parsed.data;
  }
  return stored as StoredSettings;
}

/** Stored value over default, key by key. */
export function effectiveSettings(defaults: OwnerSettings, stored: StoredSettings): OwnerSettings {
  return { ...defaults, ...stored };
}
