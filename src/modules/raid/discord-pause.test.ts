import {
  DISCORD_PAUSE_LIMIT_MS,
  DISCORD_PAUSE_MS,
  DISCORD_PAUSE_RENEW_AFTER_MS,
  incidentActionsBody,
  NO_DISCORD_PAUSE,
  pausedWhat,
  pauseFrom,
  pauseStep,
  wantsDiscordLevers,
} from './discord-pause';
import { levelStep, NO_LEVEL_CHANGE } from './lockdown-verification-level';

const NOW = new Date('2026-06-01T12:00:00Z');
const INVITES = { lockdownPauseInvites: true, lockdownPauseDms: false };
const BOTH = { lockdownPauseInvites: true, lockdownPauseDms: true };
const NONE = { lockdownPauseInvites: false, lockdownPauseDms: false };
const later = (ms: number) => new Date(NOW.getTime() + ms);

describe('the lockdown pause in Discord (rules)', () => {
  it("asks for less than Discord's 24 hours, invites only unless DMs are chosen", () => {
    const pause = pauseFrom(NOW, INVITES);
    expect(DISCORD_PAUSE_MS).toBeLessThan(DISCORD_PAUSE_LIMIT_MS);
    expect(pause.until).toBe(later(DISCORD_PAUSE_MS).toISOString());
    expect(incidentActionsBody(pause)).toEqual({ invites_disabled_until: pause.until, dms_disabled_until: null });
    expect(incidentActionsBody(pauseFrom(NOW, BOTH))).toEqual({ invites_disabled_until: pause.until, dms_disabled_until: pause.until });
    expect(incidentActionsBody(NO_DISCORD_PAUSE)).toEqual({ invites_disabled_until: null, dms_disabled_until: null });
  });

  it('pauses when the lockdown starts, renews once the last ask is old enough, and not before', () => {
    expect(pauseStep({ lockdownOn: true, wish: INVITES, pause: NO_DISCORD_PAUSE, now: NOW })).toBe('pause');
    const pause = pauseFrom(NOW, INVITES);
    expect(pauseStep({ lockdownOn: true, wish: INVITES, pause, now: later(DISCORD_PAUSE_RENEW_AFTER_MS - 1) })).toBeNull();
    expect(pauseStep({ lockdownOn: true, wish: INVITES, pause, now: later(DISCORD_PAUSE_RENEW_AFTER_MS) })).toBe('pause');
  });

  it('asks again at once when the owner changes what to pause during the lockdown', () => {
    expect(pauseStep({ lockdownOn: true, wish: BOTH, pause: pauseFrom(NOW, INVITES), now: NOW })).toBe('pause');
  });

  it('lifts a pause when the lockdown ends or both pauses are turned off, and does nothing when none was asked', () => {
    const pause = pauseFrom(NOW, INVITES);
    expect(pauseStep({ lockdownOn: false, wish: INVITES, pause, now: NOW })).toBe('lift');
    expect(pauseStep({ lockdownOn: true, wish: NONE, pause, now: NOW })).toBe('lift');
    expect(pauseStep({ lockdownOn: false, wish: INVITES, pause: NO_DISCORD_PAUSE, now: NOW })).toBeNull();
    expect(pauseStep({ lockdownOn: true, wish: NONE, pause: NO_DISCORD_PAUSE, now: NOW })).toBeNull();
  });

  it('names what is paused', () => {
    expect(pausedWhat({ invites: true, dms: true })).toBe('invites and direct messages');
    expect(pausedWhat({ invites: false, dms: true })).toBe('direct messages');
    expect(pausedWhat({ invites: false, dms: false })).toBe('');
  });

  it('asks for Manage Server only when a lever is on: a pause, or the verification level raised', () => {
    expect(wantsDiscordLevers({ ...NONE, lockdownVerificationLevel: 'off' })).toBe(false);
    expect(wantsDiscordLevers({ ...INVITES, lockdownVerificationLevel: 'off' })).toBe(true);
    expect(wantsDiscordLevers({ ...NONE, lockdownVerificationLevel: 'high' })).toBe(true);
  });

  it('raises the verification level once while the lockdown holds, again when the owner picks another, and restores only what it raised', () => {
    expect(levelStep({ lockdownOn: true, target: 3, state: NO_LEVEL_CHANGE })).toBe('raise');
    const raised = { ...NO_LEVEL_CHANGE, want: 'raise' as const, target: 3 };
    expect(levelStep({ lockdownOn: true, target: 3, state: raised })).toBeNull();
    expect(levelStep({ lockdownOn: true, target: 4, state: raised })).toBe('raise');
    expect(levelStep({ lockdownOn: false, target: 3, state: raised })).toBe('restore');
    // the owner turned it off during the lockdown: the level goes back
    expect(levelStep({ lockdownOn: true, target: null, state: raised })).toBe('restore');
    expect(levelStep({ lockdownOn: false, target: 3, state: { ...raised, want: 'restore' } })).toBeNull();
    expect(levelStep({ lockdownOn: false, target: null, state: NO_LEVEL_CHANGE })).toBeNull();
  });
});
