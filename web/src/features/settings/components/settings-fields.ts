import { SETTING_NUMBER_BOUNDS, type NumberSettingKey } from '@shared/settings-contract';
import type { OwnerSettings, SettingKey } from '../api/settings';

/** How the Settings page shows one setting. */
export type SettingField =
  | { key: NumberSettingKey; label: string; kind: 'number'; min: number; max: number; unit?: string; hint?: string }
  | { key: SettingKey; label: string; kind: 'choice'; options: readonly { value: string; label: string }[]; hint?: string }
  | { key: SettingKey; label: string; kind: 'toggle'; hint?: string }
  | { key: SettingKey; label: string; kind: 'text'; hint?: string }
  /** a Discord id, or empty for none (sent as null) */
  | { key: SettingKey; label: string; kind: 'optionalId'; hint?: string };

export interface SettingGroup {
  title: string;
  description: string;
  fields: SettingField[];
}

const LIMITED_OR_REVIEW = [
  { value: 'limited', label: 'Limited Access' },
  { value: 'review', label: 'Wait for staff review' },
] as const;

export const SETTING_GROUPS: SettingGroup[] = [
  {
    title: 'Verification policy',
    description: 'What happens to visitors and the data they leave.',
    fields: [
      {
        key: 'retentionDays',
        label: 'Retention (days)',
        kind: 'number',
        ...SETTING_NUMBER_BOUNDS.retentionDays,
        unit: 'days',
        hint: 'Visitor data older than this is deleted by the hourly purge.',
      },
      {
        key: 'vpnCheckFailure',
        label: 'When the VPN check fails',
        kind: 'choice',
        options: [
          { value: 'allow', label: 'Allow (flag for staff)' },
          { value: 'limited', label: 'Limited Access' },
          { value: 'deny', label: 'Deny' },
        ],
      },
      {
        key: 'certainAltAction',
        label: 'Certain alt at the button',
        kind: 'choice',
        options: [
          { value: 'none', label: 'Deny only' },
          { value: 'kick', label: 'Deny and kick' },
          { value: 'ban', label: 'Deny and ban' },
        ],
      },
    ],
  },
  {
    title: 'Account-age gate',
    description: 'Discord accounts younger than the minimum do not get full access at once.',
    fields: [
      {
        key: 'accountAgeMinDays',
        label: 'Minimum account age (days)',
        kind: 'number',
        ...SETTING_NUMBER_BOUNDS.accountAgeMinDays,
        hint: '0 turns the gate off.',
      },
      { key: 'accountAgeAction', label: 'Younger accounts get', kind: 'choice', options: LIMITED_OR_REVIEW },
    ],
  },
  {
    title: 'Raid alarm and lockdown',
    description: 'The alarm compares the last minutes of verifications with the previous day.',
    fields: [
      { key: 'raidWindowMinutes', label: 'Window (minutes)', kind: 'number', ...SETTING_NUMBER_BOUNDS.raidWindowMinutes },
      {
        key: 'raidMinVerifications',
        label: 'Minimum verifications in the window',
        kind: 'number',
        ...SETTING_NUMBER_BOUNDS.raidMinVerifications,
      },
      {
        key: 'raidRateFactor',
        label: 'Rate against the usual (×)',
        kind: 'number',
        ...SETTING_NUMBER_BOUNDS.raidRateFactor,
        hint: 'The window against the average window of the previous 24 hours.',
      },
      {
        key: 'raidYoungAccountDays',
        label: 'Young account: younger than (days)',
        kind: 'number',
        ...SETTING_NUMBER_BOUNDS.raidYoungAccountDays,
      },
      {
        key: 'raidYoungAccountPercent',
        label: 'Young accounts share (%)',
        kind: 'number',
        ...SETTING_NUMBER_BOUNDS.raidYoungAccountPercent,
      },
      {
        key: 'raidSharedEvidencePercent',
        label: 'Shared device or address share (%)',
        kind: 'number',
        ...SETTING_NUMBER_BOUNDS.raidSharedEvidencePercent,
      },
      { key: 'autoLockdown', label: 'Switch lockdown on automatically when the alarm is raised', kind: 'toggle' },
      { key: 'lockdownAction', label: 'During lockdown new verifications get', kind: 'choice', options: LIMITED_OR_REVIEW },
      { key: 'lockdownPauseInvites', label: 'During lockdown, pause invites in Discord (the bot needs Manage Server)', kind: 'toggle' },
      { key: 'lockdownPauseDms', label: 'During lockdown, also pause direct messages between members who are not friends', kind: 'toggle' },
      {
        key: 'lockdownVerificationLevel',
        label: "During lockdown, raise Discord's verification level to (the bot needs Manage Server)",
        kind: 'choice',
        options: [
          { value: 'off', label: 'Off: leave it as it is' },
          { value: 'medium', label: 'Medium: registered on Discord for 5 minutes' },
          { value: 'high', label: 'High: a member of the server for 10 minutes' },
          { value: 'very_high', label: 'Highest: a verified phone number' },
        ],
        hint: 'The level before the lockdown is put back when it ends, unless staff changed it meanwhile.',
      },
    ],
  },
  {
    title: 'Linked Roles',
    description:
      'Lets a server role require "Verified with Gatekeeper" (Server Settings → Roles → the role → Links). Members connect from Discord\'s role menu.',
    fields: [
      {
        key: 'linkedRoles',
        label: 'Offer "Verified with Gatekeeper" as a Linked Role requirement',
        kind: 'toggle',
        hint: "Set the Linked Roles Verification URL in the Developer Portal to this site's /linked-roles.",
      },
    ],
  },
  {
    title: 'Discord roles and channels',
    description: 'Names (or ids) as they are in your server; they are checked when you save.',
    fields: [
      { key: 'verifiedRole', label: 'Verified role', kind: 'text' },
      { key: 'limitedRole', label: 'Limited Access role', kind: 'text' },
      { key: 'unverifiedRole', label: 'Unverified role', kind: 'text' },
      { key: 'staffRole', label: 'Staff role', kind: 'text' },
      { key: 'verificationChannel', label: 'Verification channel', kind: 'text' },
      { key: 'logsChannel', label: 'Logs channel', kind: 'text' },
    ],
  },
  {
    title: 'Alerts',
    description: 'Who the #logs channel pings when it matters. Every other post pings nobody.',
    fields: [
      {
        key: 'alarmPingRole',
        label: 'Role to ping for certain alts and raid alarms (role id)',
        kind: 'optionalId',
        hint: 'Empty pings nobody. Copy the id from Server Settings → Roles → ⋯ → Copy Role ID (Developer Mode on). Discord pings it only if it allows anyone to @mention it, or the bot has "Mention @everyone, @here and All Roles".',
      },
    ],
  },
];

export type Draft = Record<SettingKey, string | boolean>;

export function draftOf(settings: OwnerSettings): Draft {
  return Object.fromEntries(
    Object.entries(settings).map(([key, value]) => [key, typeof value === 'boolean' ? value : String(value ?? '')]),
  ) as Draft;
}

/** The fields whose draft differs from what applies now, typed for the request. */
export function changedFields(draft: Draft, settings: OwnerSettings): Partial<OwnerSettings> {
  const change: Record<string, unknown> = {};
  for (const group of SETTING_GROUPS) {
    for (const field of group.fields) {
      const value = draft[field.key];
      const typed = typedValue(field, value);
      if (typed !== settings[field.key]) change[field.key] = typed;
    }
  }
  return change as Partial<OwnerSettings>;
}

/** A draft value as the request sends it. */
function typedValue(field: SettingField, value: string | boolean): unknown {
  switch (field.kind) {
    // numbers are sent as typed (the server names a value that is not a whole number)
    case 'number':
      return String(value).trim() === '' ? value : Number(value);
    case 'text':
      return String(value).trim();
    case 'optionalId':
      return String(value).trim() || null;
    default:
      return value;
  }
}

export function displayValue(field: SettingField, value: OwnerSettings[SettingKey]): string {
  if (field.kind === 'toggle') return value ? 'on' : 'off';
  if (field.kind === 'optionalId') return value === null || value === '' ? 'none' : String(value);
  if (field.kind === 'choice') return field.options.find((o) => o.value === value)?.label ?? String(value);
  return String(value);
}
