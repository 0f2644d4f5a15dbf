/**
 * The lockdown's pause in Discord itself: while Gatekeeper's lockdown holds, Discord is asked
 * (Modify Guild Incident Actions) to pause invites to the server and, if the owner chose it,
 * direct messages between members who are not friends. Discord takes a pause at most 24
 * hours ahead, so Gatekeeper asks for a little less and renews it while the lockdown holds;
 * ending the lockdown lifts it. Pure rules; the admission service stores and queues them.
 */

const HOUR_MS = 60 * 60 * 1000;

/** Discord's limit for a pause: at most 24 hours ahead. */
export const DISCORD_PAUSE_LIMIT_MS = 24 * HOUR_MS;
/** What Gatekeeper asks for: a quarter of an hour under the limit, so a clock a few minutes ahead of Discord's is not refused. */
export const DISCORD_PAUSE_MS = DISCORD_PAUSE_LIMIT_MS - HOUR_MS / 4;
/** A pause asked for this long ago is asked for again (the renewal job runs every quarter of an hour). */
export const DISCORD_PAUSE_RENEW_AFTER_MS = 6 * HOUR_MS;

/** What the owner wants paused during a lockdown (settings). */
export interface PauseWish {
  lockdownPauseInvites: boolean;
  lockdownPauseDms: boolean;
}

/** The pause Gatekeeper last asked Discord for (stored); `until` null: nothing paused (lifted, or never asked). */
export interface DiscordPause {
  invites: boolean;
  dms: boolean;
  /** ISO 8601: when Discord lets invites (and DMs) back in, as asked */
  until: string | null;
  /** ISO 8601: when it was asked for */
  requestedAt: string | null;
}

export const NO_DISCORD_PAUSE: DiscordPause = { invites: false, dms: false, until: null, requestedAt: null };

/** The body of Modify Guild Incident Actions for a pause (null lifts one). */
export interface IncidentActionsBody {
  invites_disabled_until: string | null;
  dms_disabled_until: string | null;
}

export function wantsDiscordPause(wish: PauseWish): boolean {
  return wish.lockdownPauseInvites || wish.lockdownPauseDms;
}

/**
 * Whether a lockdown pulls one of Discord's levers that need Manage Server: a pause of invites or DMs,
 * or a raised verification level. The permission self-check asks for Manage Server only then.
 */
export function wantsDiscordLevers(settings: PauseWish & { lockdownVerificationLevel: string }): boolean {
  return wantsDiscordPause(settings) || settings.lockdownVerificationLevel !== 'off';
}

/** The pause to ask for now, for a lockdown that holds. */
export function pauseFrom(now: Date, wish: PauseWish): DiscordPause {
  return {
    invites: wish.lockdownPauseInvites,
    dms: wish.lockdownPauseDms,
    until: new Date(now.getTime() + DISCORD_PAUSE_MS).toISOString(),
    requestedAt: now.toISOString(),
  };
}

export function incidentActionsBody(pause: DiscordPause): IncidentActionsBody {
  return { invites_disabled_until: pause.invites ? pause.until : null, dms_disabled_until: pause.dms ? pause.until : null };
}

export function isPaused(pause: DiscordPause): boolean {
  return pause.until !== null && (pause.invites || pause.dms);
}

/**
 * What the pause needs now (null: nothing):
 * - lockdown on and a pause wanted: 'pause' when none was asked for, the owner changed what to
 *   pause, or the last ask is `DISCORD_PAUSE_RENEW_AFTER_MS` old;
 * - otherwise 'lift' when a pause was asked for and not lifted yet.
 */
export function pauseStep(input: { lockdownOn: boolean; wish: PauseWish; pause: DiscordPause; now: Date }): 'pause' | 'lift' | null {
  const { lockdownOn, wish, pause, now } = input;
  if (lockdownOn && wantsDiscordPause(wish)) {
    if (!isPaused(pause) || pause.invites !== wish.lockdownPauseInvites || pause.dms !== wish.lockdownPauseDms) return 'pause';
    const askedAt = pause.requestedAt ? Date.parse(pause.requestedAt) : 0;
    return now.getTime() - askedAt >= DISCORD_PAUSE_RENEW_AFTER_MS ? 'pause' : null;
  }
  return isPaused(pause) ? 'lift' : null;
}

/** What is paused, in words: "invites and direct messages" (empty when nothing). */
export function pausedWhat(pause: Pick<DiscordPause, 'invites' | 'dms'>): string {
  return [pause.invites ? 'invites' : null, pause.dms ? 'direct messages' : null].filter((part) => part !== null).join(' and ');
}
