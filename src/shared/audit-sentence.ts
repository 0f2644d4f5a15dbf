/**
 * One audit entry as a sentence a person can read (docs/behaviour.md#audit-log): who did
 * what to whom, with names, e.g. "owner verified @bob by hand". The server sends each entry
 * with the names it knows now (members and staff accounts that still exist); the audit page
 * renders the parts (a member part becomes the avatar and a link to the member's page).
 * Pure TypeScript: no DOM, no Node APIs.
 */
import { AUDIT_ACTION_LABELS, isAuditAction, type AuditAction } from './audit-actions';
import type { ManualAltStatus } from './member-badges';
import { MEMBER_STATES, standingLabel } from './member-states';

export type AuditActorType = 'staff' | 'discord' | 'system' | 'visitor';

/** A member as the audit page names them: null name and avatar once their records are deleted. */
export interface AuditMemberRef {
  discordId: string;
  username: string | null;
  avatarUrl: string | null;
}

/** One entry of GET /api/admin/audit. */
export interface AuditEntryView {
  id: number;
  at: string;
  actorType: AuditActorType;
  actorId: string | null;
  actorName: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: Record<string, unknown>;
  /** the members the entry names (its target, a visitor or Discord actor, both sides of a link), by Discord ID */
  members: Record<string, AuditMemberRef>;
  /** the staff account it targets, by its current name (null once deleted) */
  targetStaffName: string | null;
  /** a decided appeal's reason, from the appeal itself (the log keeps only its length) */
  appealReason: string | null;
}

export type AuditPart = { kind: 'text'; text: string } | { kind: 'member'; member: AuditMemberRef } | { kind: 'quote'; text: string };

type Piece = string | AuditPart | readonly AuditPart[] | null | undefined | false;

/** A sentence from a template: strings are text, parts stay parts, empty values vanish. */
function say(strings: TemplateStringsArray, ...values: Piece[]): AuditPart[] {
  const parts: AuditPart[] = [];
  const push = (piece: Piece) => {
    if (piece === null || piece === undefined || piece === false || piece === '') return;
    if (Array.isArray(piece)) {
      for (const part of piece as readonly AuditPart[]) push(part.kind === 'text' ? part.text : part);
    } else if (typeof piece === 'string') {
      const last = parts.at(-1);
      if (last?.kind === 'text') last.text += piece;
      else parts.push({ kind: 'text', text: piece });
    } else parts.push(piece as AuditPart);
  };
  strings.forEach((text, i) => {
    push(text);
    if (i < values.length) push(values[i]);
  });
  return parts;
}

const quote = (text: string): AuditPart => ({ kind: 'quote', text });

function str(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}
function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

interface Context {
  entry: AuditEntryView;
  d: Record<string, unknown>;
  actor: AuditPart;
  member: (discordId: unknown) => AuditPart | null;
  target: AuditPart | null;
  staffTarget: string;
}

/** Who acted, in words: a staff name, '@name on Discord', the visitor themselves, or the job. */
function actorPart(entry: AuditEntryView, member: (id: unknown) => AuditPart | null): AuditPart {
  const name = entry.actorName;
  // a member the log names by ID only: as a member (avatar, link) while their record exists
  const known = (id: string | null) => (id !== null && entry.members[id] ? member(id) : null);
  switch (entry.actorType) {
    case 'staff':
      return { kind: 'text', text: name ?? (entry.actorId ? `staff account #${entry.actorId}` : 'a staff member') };
    case 'discord':
      return (
        known(entry.actorId) ??
        (name ? { kind: 'text', text: `@${name}` } : member(entry.actorId)) ?? { kind: 'text', text: 'someone on Discord' }
      );
    case 'visitor':
      return member(entry.actorId) ?? { kind: 'text', text: 'someone' };
    case 'system':
      return { kind: 'text', text: name ?? 'Gatekeeper' };
  }
}

const ENDING_WORDS: Record<string, string> = {
  verified: `as ${MEMBER_STATES.verified.label}`,
  limited_access: `with ${MEMBER_STATES.limited.label}`,
  denied_alt: `as a ${MEMBER_STATES.certain_alt.label}`,
  pending: 'held for staff review',
};

const CERTAIN_ALT_ACTION_WORDS: Record<string, string> = { kick: ' and kicked', ban: ' and banned' };

const DELETION_WORDS: Record<string, string> = {
  dashboard: 'from the dashboard',
  detail_page: "from the member's page",
  privacy_command: 'with /privacy delete',
};

const OUTBOX_KIND_WORDS: Record<string, string> = {
  add_guild_member: 'adding them to the server',
  add_role: 'a role change',
  remove_role: 'a role change',
  update_roles: 'a role change',
  kick: 'a kick',
  ban: 'a ban',
  unban: 'lifting a ban',
  log_message: 'a logs-channel line',
};

/** The throttle buckets (src/modules/staff/login-throttle.ts) in words. */
const THROTTLE_SCOPE_WORDS: Record<string, string> = {
  pair: 'too many wrong passwords for one account from one address',
  client: 'too many failed sign-ins from one address',
  global: 'too many failed sign-ins overall',
  flood: 'a flood of sign-ins from unknown places',
  account: 'too many failed sign-ins to one account',
  own_password: 'too many wrong current passwords',
};

function altStatusWords(value: unknown): string {
  return value === 'certain_alt' || value === 'suspected_alt' ? standingLabel(value satisfies ManualAltStatus) : 'no override';
}

function linkSides(c: Context): AuditPart[] {
  const main = c.member(c.d.mainDiscordId);
  const alt = c.member(c.d.altDiscordId);
  return main && alt ? say`between ${main} and ${alt}` : say`of ${c.target}`;
}

/** The sentence of each action; the Record makes a missing action a compile error. */
const SENTENCES: Record<AuditAction, (c: Context) => AuditPart[]> = {
  'verification.completed': (c) => {
    const alts = Array.isArray(c.d.alts) ? c.d.alts.length : 0;
    const ending = ENDING_WORDS[String(c.d.outcome)] ?? '';
    return say`${c.target} signed in on the website${ending ? ` and ended ${ending}` : ''}${alts > 0 ? ` (${plural(alts, 'alt link')} found)` : ''}`;
  },
  'verification.denied': (c) =>
    say`${c.target} was refused on the website: the VPN check failed and the policy says ${str(c.d.policy) ?? 'deny'}`,
  'rules.confirmed': (c) => say`${c.target} confirmed the rules`,
  'button.verified': (c) => say`${c.target} pressed 'Complete Verification!' and got the ${MEMBER_STATES.verified.label} role`,
  'button.limited': (c) => say`${c.target} pressed 'Complete Verification!' and got ${MEMBER_STATES.limited.label}`,
  'button.denied_alt': (c) =>
    say`${c.target} pressed 'Complete Verification!' and was denied as a ${MEMBER_STATES.certain_alt.label}${CERTAIN_ALT_ACTION_WORDS[String(c.d.certainAltAction)] ?? ''}`,
  'member.note_add': (c) => say`${c.actor} added a note to ${c.target}`,
  'member.alt_status': (c) =>
    say`${c.actor} set the alt status of ${c.target} to ${altStatusWords(c.d.to)} (was ${altStatusWords(c.d.from)})`,
  'member.manual_verify': (c) => say`${c.actor} verified ${c.target} by hand`,
  'member.unverify': (c) => say`${c.actor} took verification away from ${c.target}`,
  'member.manual_entry': (c) =>
    say`${c.actor} created a record for ${c.target} by hand (${c.d.status === 'limited_access' ? MEMBER_STATES.limited.label : MEMBER_STATES.verified.label}, rules ${c.d.rulesConfirmed === true ? 'confirmed' : 'not confirmed'}, alt status ${altStatusWords(c.d.manualAltStatus)})`,
  'member.alt_link_dismiss': (c) =>
    c.d.all === true
      ? say`${c.actor} dismissed every alt link of ${c.target}: not the same person`
      : say`${c.actor} dismissed the alt link ${linkSides(c)}: not the same person`,
  'member.alt_link_reopen': (c) => say`${c.actor} reopened the alt link ${linkSides(c)}`,
  'alt_link.rescore': (c) =>
    say`${c.actor} rescored the alt link ${linkSides(c)} from ${str(c.d.from) ?? 'its old confidence'} to ${str(c.d.to) ?? 'a new confidence'}`,
  'member.delete': (c) => {
    const via = DELETION_WORDS[String(c.d.via)];
    return c.entry.actorType === 'discord' && c.entry.actorId === c.entry.targetId
      ? say`${c.target} deleted their own records${via ? ` ${via}` : ''}`
      : say`${c.actor} deleted every record of ${c.target}${via ? ` ${via}` : ''}`;
  },
  'shared_network.mark': (c) => {
    const members = num(c.d.members);
    return say`${c.actor} marked the network of ${c.target} as shared${members !== null ? ` (${plural(members, 'member')} on it)` : ''}`;
  },
  'shared_network.unmark': (c) => say`${c.actor} unmarked the shared network of ${c.target}`,
  'appeal.filed': (c) => {
    const standing = c.d.standing === 'certain_alt' || c.d.standing === 'limited' ? standingLabel(c.d.standing) : null;
    return say`${c.target} appealed${standing ? ` their standing (${standing})` : ''}${appealNumber(c)}`;
  },
  'appeal.approved': (c) => say`${c.actor} approved the appeal${appealNumber(c)} of ${c.target}`,
  'appeal.rejected': (c) =>
    say`${c.actor} rejected the appeal${appealNumber(c)} of ${c.target}${c.entry.appealReason ? ' — ' : ''}${c.entry.appealReason ? quote(c.entry.appealReason) : null}`,
  'admission.released': (c) => {
    const count = num(c.d.count) ?? 0;
    return say`${c.actor} released ${plural(count, 'member')} held for review`;
  },
  'lockdown.on': (c) =>
    say`${c.actor} turned lockdown on${c.d.automatic === true ? ' automatically' : ''}${str(c.d.reason) ? ' — ' : ''}${str(c.d.reason) ? quote(str(c.d.reason)!) : null}`,
  'lockdown.off': (c) => say`${c.actor} turned lockdown off${c.d.release === true ? ' and released the held members' : ''}`,
  'raid.alarm': (c) => {
    const reasons = Array.isArray(c.d.reasons) ? c.d.reasons.filter((r): r is string => typeof r === 'string') : [];
    return say`${c.actor} raised a raid alarm${reasons.length ? ` (${reasons.join('; ')})` : ''}${c.d.lockdownStarted === true ? ' and started a lockdown' : ''}`;
  },
  'settings.updated': (c) => {
    const changed = c.d.changes && typeof c.d.changes === 'object' ? Object.keys(c.d.changes) : [];
    return say`${c.actor} changed the settings${changed.length ? `: ${changed.join(', ')}` : ''}`;
  },
  'staff.setup': (c) => say`${c.actor} created the owner account`,
  'staff.create': (c) => say`${c.actor} created the staff account ${c.staffTarget}`,
  'staff.delete': (c) => say`${c.actor} deleted the staff account ${c.staffTarget}`,
  'staff.promote': (c) => say`${c.actor} made ${c.staffTarget} a super admin`,
  'staff.demote': (c) => say`${c.actor} removed super admin from ${c.staffTarget}`,
  'staff.password_change': (c) =>
    c.d.own === true ? say`${c.actor} changed their own password` : say`${c.actor} changed the password of ${c.staffTarget}`,
  'staff.password_change_failed': (c) => say`${c.actor} tried to change their password with a wrong current password`,
  'staff.login': (c) => say`${c.actor} signed in`,
  'staff.logout': (c) => say`${c.actor} signed out`,
  'staff.login_failed': (c) =>
    c.entry.targetId ? say`A sign-in to ${c.staffTarget} failed: wrong password` : say`A sign-in with an unknown username failed`,
  'staff.login_throttled': (c) => {
    const why = THROTTLE_SCOPE_WORDS[String(c.d.scope)] ?? 'too many failed sign-ins';
    return c.entry.targetId ? say`Sign-ins to ${c.staffTarget} were held back: ${why}` : say`Staff sign-ins were held back: ${why}`;
  },
  'outbox.retry': (c) => say`${c.actor} retried ${OUTBOX_KIND_WORDS[String(c.d.kind)] ?? 'a Discord action'} for ${c.target}`,
  'outbox.failed': (c) => {
    const attempts = num(c.d.attempts);
    return say`Discord refused ${OUTBOX_KIND_WORDS[String(c.d.kind)] ?? 'a Discord action'} for ${c.target}${attempts !== null ? ` after ${plural(attempts, 'try', 'tries')}` : ''}${str(c.d.error) ? ': ' : ''}${str(c.d.error) ? quote(str(c.d.error)!) : null}`;
  },
  'retention.purge': (c) => {
    const members = num(c.d.members) ?? 0;
    const days = num(c.d.retentionDays);
    return say`${c.actor} deleted ${plural(members, 'member record')} and other data older than ${days !== null ? plural(days, 'day') : 'the retention period'}`;
  },
  'command.lookup': (c) => say`${c.actor} looked up ${c.target} with /lookup`,
  'command.appeals': (c) => {
    const open = num(c.d.open);
    return say`${c.actor} listed the open appeals with /appeals${open !== null ? ` (${open})` : ''}`;
  },
  'command.panel': (c) => say`${c.actor} posted the verification panel with /panel`,
  'command.shared_network_list': (c) => say`${c.actor} listed the shared networks with /shared-network list`,
  'privacy.show': (c) => say`${c.target} viewed their stored data with /privacy show`,
};

function appealNumber(c: Context): string {
  const id = num(c.d.appealId);
  return id !== null ? ` #${id}` : '';
}

/** The entry's sentence as parts: text, members (avatar and link) and quoted words. */
export function auditSentence(entry: AuditEntryView): AuditPart[] {
  const member = (discordId: unknown): AuditPart | null => {
    if (typeof discordId !== 'string' || discordId === '') return null;
    return { kind: 'member', member: entry.members[discordId] ?? { discordId, username: null, avatarUrl: null } };
  };
  const actor = actorPart(entry, member);
  const target = entry.targetType === 'member' ? member(entry.targetId) : null;
  const context: Context = {
    entry,
    d: entry.details ?? {},
    actor,
    member,
    target: target ?? { kind: 'text', text: 'a member' },
    staffTarget:
      entry.targetStaffName ?? str(entry.details?.username) ?? (entry.targetId ? `staff account #${entry.targetId}` : 'a staff account'),
  };
  if (isAuditAction(entry.action)) return SENTENCES[entry.action](context);
  // a code this version does not know (an older or newer row): still a sentence, naming the code
  return say`${actor} — ${entry.action}${target ? ' on ' : ''}${target}`;
}

/** A member's name in a sentence: '@name', or the Discord ID once their records are gone. */
export function memberRefText(member: AuditMemberRef): string {
  return member.username ? `@${member.username}` : `member ${member.discordId}`;
}

/** The sentence as plain text (tests, screen readers' labels, exports). */
export function auditSentenceText(entry: AuditEntryView): string {
  return auditSentence(entry)
    .map((part) => (part.kind === 'member' ? memberRefText(part.member) : part.kind === 'quote' ? `'${part.text}'` : part.text))
    .join('');
}

/** The words of an action for the filter's choices. */
export function auditActionLabel(action: string): string {
  return isAuditAction(action) ? AUDIT_ACTION_LABELS[action] : action;
}
