/** The raid module, as the rest of the server uses it. */
export { discordPauseStatus, syncDiscordPause } from './discord-pause.repository';
export { DISCORD_PAUSE_MS, DISCORD_PAUSE_RENEW_AFTER_MS, DISCORD_PAUSE_LIMIT_MS, wantsDiscordLevers } from './discord-pause';
export { LOCKDOWN_OFF, type LockdownState } from './lockdown-state';
export {
  levelOf,
  readLevelState,
  verificationLevelStatus,
  type VerificationLevelStatus,
  writeLevelState,
} from './lockdown-verification-level';
export { lockdownFromValue, lockdownValueQuery, readLockdown, writeLockdown } from './lockdown.repository';
export { createPreviousDayCount } from './previous-day-count';
export { type RaidPolicy, type RaidReason, type RaidWindow } from './raid-rules';
export {
  alarmStandingQuery,
  raidWindowFrom,
  raidWindowQuery,
  recentRaidAlarms,
  type RaidWindowRow,
  type WindowAttempt,
} from './raid.repository';
export { checkForRaid, raiseDiscordRaidAlarm } from './raid.service';
