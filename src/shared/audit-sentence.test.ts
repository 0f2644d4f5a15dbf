import fs from 'node:fs';
import path from 'node:path';
import { AUDIT_ACTIONS, AUDIT_ACTION_LABELS, type AuditAction } from './audit-actions';
import { auditSentence, auditSentenceText, type AuditEntryView } from './audit-sentence';

const SRC = path.resolve(__dirname, '..');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'discord-emulator' || entry.name === 'test-support' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** The button outcomes that write an audit row (`button.${outcome}` in button-flow.ts). */
const AUDITED_BUTTON_OUTCOMES = ['verified', 'limited', 'denied_alt'];

/**
 * Every action code the server writes, read from the source: the quoted codes on lines that
 * set an audit row's action, in the files that write audit rows.
 */
function actionsWrittenBySource(): Set<string> {
  const found = new Set<string>();
  for (const file of sourceFiles(SRC)) {
    const text = fs.readFileSync(file, 'utf8');
    if (!/appendAudit|auditAppendCall|recordCommandUse/.test(text) || file.includes(`${path.sep}audit${path.sep}`)) continue;
    for (const line of text.split('\n')) {
      if (!/\baction\b/.test(line)) continue;
      for (const match of line.matchAll(/'([a-z_]+\.[a-z_]+)'/g)) found.add(match[1]!);
      if (line.includes('`button.${outcome}`')) for (const outcome of AUDITED_BUTTON_OUTCOMES) found.add(`button.${outcome}`);
    }
  }
  return found;
}

const OWNER = { actorType: 'staff' as const, actorId: '1', actorName: 'owner' };
const BOB = { discordId: '200000000000000002', username: 'bob', avatarUrl: 'https://cdn.example/bob.png' };
const MAIN = { discordId: '200000000000000001', username: 'mary', avatarUrl: null };

function entry(action: string, overrides: Partial<AuditEntryView> = {}): AuditEntryView {
  return {
    id: 1,
    at: '2026-11-29T10:00:00.000Z',
    ...OWNER,
    action,
    targetType: 'member',
    targetId: BOB.discordId,
    details: {},
    members: { [BOB.discordId]: BOB, [MAIN.discordId]: MAIN },
    targetStaffName: null,
    appealReason: null,
    ...overrides,
  };
}

/** A plausible row of each action, as its writer stores it. */
const SAMPLES: Record<AuditAction, AuditEntryView> = {
  'verification.completed': entry('verification.completed', {
    actorType: 'visitor',
    actorId: BOB.discordId,
    actorName: null,
    details: { outcome: 'verified', alts: [{ discordId: MAIN.discordId }] },
  }),
  'verification.denied': entry('verification.denied', {
    actorType: 'visitor',
    actorId: BOB.discordId,
    actorName: null,
    details: { reason: 'vpn_check_failed', policy: 'deny' },
  }),
  'rules.confirmed': entry('rules.confirmed', { actorType: 'visitor', actorId: BOB.discordId, actorName: null }),
  'button.verified': entry('button.verified', { actorType: 'discord', actorId: BOB.discordId, actorName: 'bob' }),
  'button.limited': entry('button.limited', { actorType: 'discord', actorId: BOB.discordId, actorName: 'bob' }),
  'button.denied_alt': entry('button.denied_alt', {
    actorType: 'discord',
    actorId: BOB.discordId,
    actorName: 'bob',
    details: { certainAltAction: 'kick' },
  }),
  'member.note_add': entry('member.note_add', { details: { noteId: 3, length: 20 } }),
  'member.alt_status': entry('member.alt_status', { details: { from: null, to: 'certain_alt' } }),
  'member.manual_verify': entry('member.manual_verify', { details: { from: 'pending', status: 'verified' } }),
  'member.unverify': entry('member.unverify', { details: { from: 'verified', rulesConfirmed: true } }),
  'member.manual_entry': entry('member.manual_entry', { details: { status: 'verified', rulesConfirmed: true, manualAltStatus: null } }),
  'member.alt_link_dismiss': entry('member.alt_link_dismiss', {
    details: { linkId: 4, mainDiscordId: MAIN.discordId, altDiscordId: BOB.discordId, confidence: 'certain', detectionMethod: 'both' },
  }),
  'member.alt_link_reopen': entry('member.alt_link_reopen', {
    details: { linkId: 4, mainDiscordId: MAIN.discordId, altDiscordId: BOB.discordId },
  }),
  'alt_link.rescore': entry('alt_link.rescore', {
    actorType: 'system',
    actorId: 'alt-rescoring',
    actorName: 'Alt rescoring',
    details: { linkId: 4, mainDiscordId: MAIN.discordId, altDiscordId: BOB.discordId, from: 'certain', to: 'medium', why: 'downgraded' },
  }),
  'member.delete': entry('member.delete', { members: {}, details: { via: 'dashboard', attempts: 2 } }),
  'shared_network.mark': entry('shared_network.mark', { details: { labelled: true, members: 4 } }),
  'shared_network.unmark': entry('shared_network.unmark', { details: { members: 4 } }),
  'appeal.filed': entry('appeal.filed', {
    actorType: 'visitor',
    actorId: BOB.discordId,
    actorName: null,
    details: { appealId: 7, standing: 'limited', length: 40 },
  }),
  'appeal.approved': entry('appeal.approved', { details: { appealId: 7, standingAtFiling: 'certain_alt' } }),
  'appeal.rejected': entry('appeal.rejected', { details: { appealId: 7, reasonLength: 18 }, appealReason: 'still the same device' }),
  'admission.released': entry('admission.released', {
    targetType: 'server',
    targetId: null,
    details: { count: 3, verified: 2, limited: 1 },
  }),
  'lockdown.on': entry('lockdown.on', { targetType: 'server', targetId: null, details: { reason: 'raid from a forum', wasOn: false } }),
  'lockdown.off': entry('lockdown.off', { targetType: 'server', targetId: null, details: { reason: null, release: true } }),
  'raid.alarm': entry('raid.alarm', {
    actorType: 'system',
    actorId: 'raid',
    actorName: 'Raid detector',
    targetType: 'server',
    targetId: null,
    details: { reasons: ['40 joins in 5 minutes'], lockdownStarted: true },
  }),
  'settings.updated': entry('settings.updated', {
    targetType: 'settings',
    targetId: '2',
    details: { version: 2, changes: { certainAltAction: { old: 'none', new: 'kick' } } },
  }),
  'staff.setup': entry('staff.setup', { targetType: 'staff', targetId: '1', details: { owner: true } }),
  'staff.create': entry('staff.create', { targetType: 'staff', targetId: '3', targetStaffName: 'Helper', details: { username: 'Helper' } }),
  'staff.delete': entry('staff.delete', { targetType: 'staff', targetId: '3', details: { username: 'Helper' } }),
  'staff.promote': entry('staff.promote', { targetType: 'staff', targetId: '3', targetStaffName: 'Helper' }),
  'staff.demote': entry('staff.demote', { targetType: 'staff', targetId: '3', targetStaffName: 'Helper' }),
  'staff.password_change': entry('staff.password_change', { targetType: 'staff', targetId: '3', targetStaffName: 'Helper' }),
  'staff.password_change_failed': entry('staff.password_change_failed', {
    targetType: 'staff',
    targetId: '1',
    details: { reason: 'wrong_current_password' },
  }),
  'staff.login': entry('staff.login', { targetType: 'staff', targetId: '1', targetStaffName: 'owner' }),
  'staff.logout': entry('staff.logout', { targetType: 'staff', targetId: '1', targetStaffName: 'owner' }),
  'staff.login_failed': entry('staff.login_failed', {
    actorType: 'visitor',
    actorId: null,
    actorName: null,
    targetType: 'staff',
    targetId: '3',
    targetStaffName: 'Helper',
    details: { reason: 'wrong_password' },
  }),
  'staff.login_throttled': entry('staff.login_throttled', {
    actorType: 'visitor',
    actorId: null,
    actorName: null,
    targetType: 'staff',
    targetId: null,
    details: { scope: 'client' },
  }),
  'outbox.retry': entry('outbox.retry', { details: { outboxId: 9, kind: 'update_roles' } }),
  'outbox.failed': entry('outbox.failed', {
    actorType: 'system',
    actorId: 'outbox',
    actorName: 'Discord outbox',
    details: { outboxId: 9, kind: 'update_roles', error: 'Missing Permissions', attempts: 5 },
  }),
  'retention.purge': entry('retention.purge', {
    actorType: 'system',
    actorId: 'retention',
    actorName: 'Retention purge',
    targetType: null,
    targetId: null,
    details: { members: 12, retentionDays: 30 },
  }),
  'command.lookup': entry('command.lookup', { actorType: 'discord', actorId: '300000000000000003', actorName: 'modmin' }),
  'command.appeals': entry('command.appeals', {
    actorType: 'discord',
    actorId: '300000000000000003',
    actorName: 'modmin',
    targetType: null,
    targetId: null,
    details: { open: 2 },
  }),
  'command.panel': entry('command.panel', {
    actorType: 'discord',
    actorId: '300000000000000003',
    actorName: 'modmin',
    targetType: 'channel',
    targetId: '5',
    details: { messageId: '6' },
  }),
  'command.shared_network_list': entry('command.shared_network_list', {
    actorType: 'discord',
    actorId: '300000000000000003',
    actorName: 'modmin',
    targetType: null,
    targetId: null,
    details: { networks: 1 },
  }),
  'privacy.show': entry('privacy.show', { actorType: 'discord', actorId: BOB.discordId, actorName: null }),
};

describe('audit actions', () => {
  it('lists exactly the actions the server writes: a new action without words and a sentence fails here', () => {
    const written = [...actionsWrittenBySource()].sort();
    expect(written.length).toBeGreaterThan(30);
    expect(written).toEqual([...AUDIT_ACTIONS].sort());
  });

  it('every action has filter words that are not its code', () => {
    for (const action of AUDIT_ACTIONS) expect(AUDIT_ACTION_LABELS[action]).not.toBe(action);
  });
});

describe('auditSentence', () => {
  it.each(AUDIT_ACTIONS)('%s reads as a sentence with names, without codes, JSON or raw IDs of known members', (action) => {
    const sample = SAMPLES[action];
    const text = auditSentenceText(sample);
    expect(text).not.toContain(action);
    expect(text).not.toMatch(/[{}[\]"]|undefined|null|NaN|\[object/);
    expect(text).not.toMatch(/_/);
    if (sample.members[BOB.discordId] && sample.targetId === BOB.discordId) {
      expect(text).toContain('@bob');
      expect(text).not.toContain(BOB.discordId);
      expect(auditSentence(sample).some((part) => part.kind === 'member' && part.member.discordId === BOB.discordId)).toBe(true);
    }
  });

  it('reads the examples as a moderator would say them', () => {
    expect(auditSentenceText(SAMPLES['member.manual_verify'])).toBe('owner verified @bob by hand');
    expect(auditSentenceText(SAMPLES['member.alt_status'])).toBe('owner set the alt status of @bob to Certain Alt (was no override)');
    expect(auditSentenceText(SAMPLES['appeal.rejected'])).toBe("owner rejected the appeal #7 of @bob — 'still the same device'");
    expect(auditSentenceText(SAMPLES['member.alt_link_dismiss'])).toBe(
      'owner dismissed the alt link between @mary and @bob: not the same person',
    );
    expect(auditSentenceText(SAMPLES['staff.promote'])).toBe('owner made Helper a super admin');
    expect(auditSentenceText(SAMPLES['button.denied_alt'])).toBe(
      "@bob pressed 'Complete Verification!' and was denied as a Certain Alt and kicked",
    );
    expect(auditSentenceText(SAMPLES['command.lookup'])).toBe('@modmin looked up @bob with /lookup');
  });

  it('names a member whose records are gone by their Discord ID, the only thing the log keeps', () => {
    expect(auditSentenceText(SAMPLES['member.delete'])).toBe(`owner deleted every record of member ${BOB.discordId} from the dashboard`);
  });

  it('still reads an action this version does not know', () => {
    expect(auditSentenceText(entry('member.something_new'))).toBe('owner — member.something_new on @bob');
  });
});
