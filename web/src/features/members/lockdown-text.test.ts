import { discordPauseLine, lockdownEndEffects, lockdownStartEffects, pausedThings, verificationLevelLine } from './lockdown-text';

const pause = (over: Partial<Parameters<typeof discordPauseLine>[0]> = {}) => ({
  invites: true,
  dms: false,
  until: '2026-06-02T11:45:00.000Z',
  requestedAt: '2026-06-01T12:00:00.000Z',
  call: null,
  ...over,
});

describe('the lockdown control in words', () => {
  it('says what starting does, with what Discord pauses as the owner set it', () => {
    expect(lockdownStartEffects({ action: 'review', pauseInvites: true, pauseDms: true, raiseVerificationLevel: null })).toEqual([
      'New verifications wait for staff review: nobody new gets a role until staff release them.',
      'Members verified before keep their roles.',
      'Discord pauses invites and direct messages between members who are not friends for this server; Gatekeeper renews the pause every few hours while the lockdown lasts.',
      'It lasts until staff end it, here or with /lockdown off.',
    ]);
    expect(lockdownStartEffects({ action: 'limited', pauseInvites: false, pauseDms: false, raiseVerificationLevel: null })[2]).toBe(
      'Discord is not asked to pause invites or direct messages (Settings → Raid alarm).',
    );
  });

  it('says what ending does: the pause lifted only when one was asked for, the held members as chosen', () => {
    expect(lockdownEndEffects(pause(), true)).toEqual([
      'New verifications get full access again.',
      "Discord's pause of invites is lifted.",
      'Members held for review are released: those who finished verifying get their role now.',
    ]);
    expect(lockdownEndEffects(pause({ invites: false, until: null }), false)).toEqual([
      'New verifications get full access again.',
      'Members held for review stay held: release them one by one or all at once later.',
    ]);
  });

  it("shows the pause as asked, done, or refused with Discord's answer", () => {
    expect(discordPauseLine(pause())?.text).toBe('Asking Discord to pause invites…');
    expect(discordPauseLine(pause({ call: { status: 'done', error: null, at: '2026-06-01T12:00:01.000Z' } }))?.tone).toBe('ok');
    expect(
      discordPauseLine(pause({ call: { status: 'failed', error: '403 50013: Missing Permissions', at: '2026-06-01T12:00:01.000Z' } })),
    ).toEqual({
      tone: 'error',
      text: 'Discord refused to pause invites: 403 50013: Missing Permissions. The lockdown still holds in Gatekeeper.',
    });
    expect(discordPauseLine(pause({ invites: false }))).toBeNull();
    expect(pausedThings({ invites: false, dms: true })).toBe('direct messages between members who are not friends');
  });

  it('says when starting raises the verification level, and the banner shows it raised, left alone or refused', () => {
    expect(lockdownStartEffects({ action: 'limited', pauseInvites: false, pauseDms: false, raiseVerificationLevel: 3 })).toContain(
      "Discord's verification level is raised to High, and put back when the lockdown ends.",
    );
    const level = {
      want: 'raise' as const,
      target: 3,
      raisedTo: 3,
      previous: 1,
      restore: null,
      call: { status: 'done' as const, error: null },
    };
    expect(verificationLevelLine(level)).toEqual({
      tone: 'ok',
      text: 'Verification level raised in Discord to High (was Low); put back when the lockdown ends.',
    });
    expect(verificationLevelLine({ ...level, raisedTo: null, previous: null })?.text).toBe(
      'Verification level left as it was: the server already asks at least High.',
    );
    expect(verificationLevelLine({ ...level, call: { status: 'failed', error: '403 50013: Missing Permissions' } })?.tone).toBe('error');
    expect(verificationLevelLine({ ...level, call: null })?.text).toBe('Asking Discord to raise the verification level to High…');
    expect(verificationLevelLine({ ...level, want: 'restore' })).toBeNull();
  });
});
