/**
 * The owner's settings as the server stores them and the Settings page edits them: their
 * names, the choices, and the bounds of each number. The server's schema
 * (src/modules/settings/settings.schema.ts) validates with these bounds and the page caps its
 * inputs with the same ones. Pure TypeScript: no DOM, no Node APIs, no imports.
 */

/** Inclusive bounds of each numeric setting. */
export const SETTING_NUMBER_BOUNDS = {
  retentionDays: { min: 1, max: 3650 },
  /** 0 turns the account-age gate off */
  accountAgeMinDays: { min: 0, max: 3650 },
  raidWindowMinutes: { min: 1, max: 1440 },
  raidMinVerifications: { min: 2, max: 100000 },
  raidRateFactor: { min: 2, max: 1000 },
  raidYoungAccountDays: { min: 1, max: 365 },
  raidYoungAccountPercent: { min: 1, max: 100 },
  raidSharedEvidencePercent: { min: 1, max: 100 },
} as const satisfies Record<string, { min: number; max: number }>;
export type NumberSettingKey = keyof typeof SETTING_NUMBER_BOUNDS;

export const VPN_CHECK_FAILURE_POLICIES = ['allow', 'limited', 'deny'] as const;
export const CERTAIN_ALT_ACTIONS = ['none', 'kick', 'ban'] as const;
/** What a held visitor gets: under the account-age gate, or during a lockdown. */
export const HOLD_ACTIONS = ['limited', 'review'] as const;
/** The verification level a lockdown raises Discord's to; 'off' leaves the level alone. */
export const LOCKDOWN_VERIFICATION_LEVELS = ['off', 'medium', 'high', 'very_high'] as const;

/** A role or channel name (or id) as Discord allows it, in characters. */
export const DISCORD_NAME_MAX = 100;

/** The owner's settings as the server applies them. */
export interface OwnerSettings {
  retentionDays: number;
  vpnCheckFailure: (typeof VPN_CHECK_FAILURE_POLICIES)[number];
  certainAltAction: (typeof CERTAIN_ALT_ACTIONS)[number];
  accountAgeMinDays: number;
  accountAgeAction: (typeof HOLD_ACTIONS)[number];
  raidWindowMinutes: number;
  raidMinVerifications: number;
  raidRateFactor: number;
  raidYoungAccountDays: number;
  raidYoungAccountPercent: number;
  raidSharedEvidencePercent: number;
  autoLockdown: boolean;
  lockdownAction: (typeof HOLD_ACTIONS)[number];
  lockdownPauseInvites: boolean;
  lockdownPauseDms: boolean;
  lockdownVerificationLevel: (typeof LOCKDOWN_VERIFICATION_LEVELS)[number];
  linkedRoles: boolean;
  verifiedRole: string;
  limitedRole: string;
  unverifiedRole: string;
  staffRole: string;
  verificationChannel: string;
  logsChannel: string;
  /** the role pinged by the #logs posts of a certain alt and of a raid alarm (a role id); null pings nobody */
  alarmPingRole: string | null;
}
export type SettingKey = keyof OwnerSettings;
