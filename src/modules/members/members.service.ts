import { queueRoleConnectionUpdate, auditLogReason, grantVerified, type OutboxPort } from '../outbox';
import type { UserListPage } from '../../shared/admin-api';
import type { Clock } from '../../clock';
import type { Database } from '../../db/client';
import { Conflict, NotFound } from '../../errors';
import { memberStanding, type ManualAltStatus, type MemberFilter } from '../../shared/member-badges';
import type { Logger } from '../../logger';
import { logDenied, logVerified } from '../../operator-events';
import { actedFromCard, appendAudit } from '../audit';
import { openAppealIdsOf } from './open-appeals.repository';
import { standingLabel } from '../../shared/member-states';
import { deleteMemberEverywhere, type DeletedMember } from './member-delete';
import {
  findLinkOfMemberForUpdate,
  findSharedNetwork,
  listAltsForMember,
  listCountingLinksOfMemberForUpdate,
  markLinkReopened,
  markLinksDismissed,
  recomputeAltCounters,
  type Dismisser,
  type LinkForReview,
} from '../alts';
import { actorLabel, auditActorOf, noteAuthorOf, type ActingStaff, type MemberActor, type DiscordStaff } from './member-actor';
import { latestFingerprintComponents, listAttemptSummaries } from './member-evidence.repository';
import { insertNote, listNotes } from './member-notes.repository';
import {
  snowflakeCreationDate,
  toAltEntry,
  toNoteView,
  toUserRecord,
  type AdminNoteView,
  type UserDetail,
  type UserRecord,
} from './member-views';
import { listWithTotal } from './member-list-total';
import { standingReason, strongestCountingLink } from './standing-reason';
import {
  findMemberByDiscordId,
  insertManualMember,
  markDenied,
  markManuallyVerified,
  markUnverified,
  setManualAltStatus,
  type ManualMemberInput,
  type MemberCursor,
  decodeMemberCursor,
} from './members.repository';

export interface MembersServiceDeps {
  database: Database;
  clock: Clock;
  outbox: OutboxPort;
  /** the operator's log (a line when staff verify or deny) */
  logger?: Logger;
}

export type { ActingStaff, DiscordStaff, MemberActor };

export const USER_NOT_FOUND = 'User';
export const ALREADY_VERIFIED = 'User is already verified';
export const NOT_VERIFIED = 'User is not verified';
export const ALT_STATUS_UNCHANGED = 'The alt status is already set to that';
export const RECORD_EXISTS = 'A verification record for this Discord ID already exists';
export const ALT_LINK_NOT_FOUND = 'Alt link';
export const ALT_LINK_ALREADY_DISMISSED = 'This link is already dismissed';
export const ALT_LINK_NOT_DISMISSED = 'This link is not dismissed';
export const ALREADY_REMOVED_FROM_CARD = 'Someone already acted on this member from this log message';

/** How staff remove a member from the server. */
export type Removal = 'kick' | 'ban';
const REMOVAL_WORDS: Record<Removal, string> = { kick: 'denied and kicked', ban: 'denied and banned' };

/** Who dismissed a link, as kept on it: the staff account when there is one. */
function dismisserOf(actor: MemberActor): Dismisser {
  const author = noteAuthorOf(actor);
  return { staffId: author.authorStaffId, name: author.authorName };
}

/** The audit row's details of a dismissed or reopened link: both members by Discord ID (a reason's text stays on the link, out of the append-only log). */
function linkAuditDetails(link: LinkForReview, extra: Record<string, unknown> = {}) {
  return {
    linkId: link.id,
    mainDiscordId: link.mainDiscordId,
    altDiscordId: link.altDiscordId,
    confidence: link.confidence,
    detectionMethod: link.detectionMethod,
    ...extra,
  };
}

/** The alt-status override in words (logs channel, slash command replies). */
/** A manual alt status in words: the label of the standing it sets (MEMBER_STATES). */
export const ALT_STATUS_WORDS: Record<ManualAltStatus | 'none', string> = {
  none: 'no override',
  suspected_alt: standingLabel('suspected_alt'),
  certain_alt: standingLabel('certain_alt'),
};

export type { UserListPage };
/** Reads the list's opaque cursor (request validation); null when it is not one this service issued. */
export { decodeMemberCursor };

/** A record with its open appeal's id, when there is one (the 'Appeal open' badge). */
function withOpenAppeal(record: UserRecord, openAppealId: number | undefined): UserRecord {
  return openAppealId === undefined ? record : { ...record, openAppealId };
}

/** What staff do with member records from the dashboard (docs/behaviour.md#staff-screens). */
export function createMembersService(deps: MembersServiceDeps) {
  const { db } = deps.database;

  async function list(query: { search?: string; filter: MemberFilter; limit: number; cursor?: MemberCursor }): Promise<UserListPage> {
    const { page, count } = await listWithTotal(db, query);
    const openAppeals = await openAppealIdsOf(
      db,
      page.members.map((m) => m.id),
    );
    return {
      users: page.members.map((m) => withOpenAppeal(toUserRecord(m), openAppeals.get(m.id))),
      total: count.total,
      totalIsExact: count.exact,
      totalIsCapped: count.capped,
      nextCursor: page.nextCursor,
    };
  }

  async function detail(discordId: string): Promise<UserDetail> {
    const member = await findMemberByDiscordId(db, discordId);
    if (!member) throw NotFound(USER_NOT_FOUND);
    const [notes, alts, components, evidence, sharedNetwork, openAppeals] = await Promise.all([
      listNotes(db, member.id),
      listAltsForMember(db, member.id),
      latestFingerprintComponents(db, member.id),
      listAttemptSummaries(db, member.id),
      findSharedNetwork(db, member.networkHash),
      openAppealIdsOf(db, [member.id]),
    ]);
    const admission = member.gateAction ? { action: member.gateAction, reason: member.gateReason ?? null } : null;
    const strongest = strongestCountingLink(alts, member.isLinkedAsAlt);
    const reason = standingReason({
      standing: memberStanding(member),
      manualAltStatus: member.manualAltStatus,
      status: member.status,
      admission,
      usedVpn: member.usedVpn,
      vpnProvider: member.vpnProvider,
      link: strongest ? { ...strongest, method: strongest.detectionMethod } : null,
      now: deps.clock.now(),
    });
    const everVerified = member.verificationCount > 0;
    return {
      ...withOpenAppeal(toUserRecord(member), openAppeals.get(member.id)),
      creationDate: snowflakeCreationDate(member.discordId),
      fingerprint: member.fingerprintHash,
      fingerprintComponents: components,
      verificationStatus: member.guildAccess,
      adminNotes: notes.map(toNoteView),
      alts: alts.map(toAltEntry),
      vpnProvider: member.vpnProvider,
      serversVerifiedIn: 1,
      source: member.source,
      evidence,
      sharedNetwork: { marked: sharedNetwork !== null, label: sharedNetwork?.label ?? null },
      admission,
      firstVerifiedAt: everVerified ? member.createdAt.toISOString() : null,
      lastVerifiedAt: everVerified ? member.verifiedAt.toISOString() : null,
      standingReason: reason,
    };
  }

  /** Both deletes of the dashboard; a line goes to the logs channel with the deletion. */
  async function remove(actor: ActingStaff, discordId: string, via: 'dashboard' | 'detail_page'): Promise<DeletedMember> {
    const now = deps.clock.now();
    return db.transaction(async (tx) => {
      const deleted = await deleteMemberEverywhere(tx, discordId, auditActorOf(actor), { now, via, outbox: deps.outbox });
      if (!deleted) throw NotFound(USER_NOT_FOUND);
      await deps.outbox.enqueue(tx, {
        kind: 'log_message',
        event: 'staff_action',
        discordId,
        text: `Verification records of <@${discordId}> deleted by staff member ${actor.username}`,
      });
      return deleted;
    });
  }

  /** Saves a new note; older notes stay as history (the page shows the newest). */
  async function addNote(actor: MemberActor, discordId: string, note: string): Promise<AdminNoteView> {
    const now = deps.clock.now();
    return db.transaction(async (tx) => {
      const member = await findMemberByDiscordId(tx, discordId, { forUpdate: true });
      if (!member) throw NotFound(USER_NOT_FOUND);
      const saved = await insertNote(tx, { memberId: member.id, note, ...noteAuthorOf(actor) }, now);
      // the note's text stays out of the append-only log and the logs channel: it may hold personal data that retention must be able to delete
      await appendAudit(
        tx,
        {
          actor: auditActorOf(actor),
          action: 'member.note_add',
          targetType: 'member',
          targetId: discordId,
          details: { noteId: saved.id, length: note.length },
        },
        now,
      );
      await deps.outbox.enqueue(tx, {
        kind: 'log_message',
        event: 'staff_action',
        discordId,
        text: `📝 Staff member ${actorLabel(actor)} added a note to <@${discordId}>`,
      });
      return toNoteView(saved);
    });
  }

  /** Staff's alt-status override; setting the status it already has changes nothing and says so (409). */
  async function setAltStatus(
    actor: MemberActor,
    discordId: string,
    manualAltStatus: ManualAltStatus | null,
    options: { refuseUnchanged?: boolean } = {},
  ): Promise<void> {
    const now = deps.clock.now();
    await db.transaction(async (tx) => {
      const member = await findMemberByDiscordId(tx, discordId, { forUpdate: true });
      if (!member) throw NotFound(USER_NOT_FOUND);
      if (member.manualAltStatus === manualAltStatus) {
        if (options.refuseUnchanged) throw Conflict(ALT_STATUS_UNCHANGED);
        return;
      }
      await setManualAltStatus(tx, member.id, manualAltStatus, now);
      // Linked Roles: "not flagged as an alt" follows
      await queueRoleConnectionUpdate(tx, deps.outbox, discordId);
      await appendAudit(
        tx,
        {
          actor: auditActorOf(actor),
          action: 'member.alt_status',
          targetType: 'member',
          targetId: discordId,
          details: { from: member.manualAltStatus, to: manualAltStatus },
        },
        now,
      );
      await deps.outbox.enqueue(tx, {
        kind: 'log_message',
        event: 'staff_action',
        discordId,
        text: `🏷️ Staff member ${actorLabel(actor)} set the alt status of <@${discordId}> to ${ALT_STATUS_WORDS[manualAltStatus ?? 'none']}`,
      });
    });
  }

  /** Grants server access through the outbox, in the transaction that records it. */
  async function manualVerify(actor: MemberActor, discordId: string): Promise<void> {
    const now = deps.clock.now();
    await db.transaction(async (tx) => {
      const member = await findMemberByDiscordId(tx, discordId, { forUpdate: true });
      if (!member) throw NotFound(USER_NOT_FOUND);
      if (member.guildAccess === 'verified') throw Conflict(ALREADY_VERIFIED);
      await markManuallyVerified(tx, member.id, now);
      await deps.outbox.enqueue(tx, grantVerified(discordId, auditLogReason(`verified by staff (${actor.username})`)));
      await queueRoleConnectionUpdate(tx, deps.outbox, discordId);
      await deps.outbox.enqueue(tx, {
        kind: 'log_message',
        event: 'staff_action',
        discordId,
        text: `<@${discordId}> manually verified by staff member ${actorLabel(actor)}`,
      });
      await appendAudit(
        tx,
        {
          actor: auditActorOf(actor),
          action: 'member.manual_verify',
          targetType: 'member',
          targetId: discordId,
          details: { from: member.guildAccess, status: member.status },
        },
        now,
      );
    });
    if (deps.logger) logVerified(deps.logger, { discordId, via: 'staff' });
  }

  /**
   * Takes verification away: the Verified and Limited Access roles go, Unverified comes
   * back (through the outbox), and the member must accept the rules on the website again
   * before the button grants anything. Refused (409) when there is nothing to take away.
   */
  async function unverify(actor: MemberActor, discordId: string): Promise<void> {
    const now = deps.clock.now();
    await db.transaction(async (tx) => {
      const member = await findMemberByDiscordId(tx, discordId, { forUpdate: true });
      if (!member) throw NotFound(USER_NOT_FOUND);
      const hasAccess = member.guildAccess === 'verified' || member.guildAccess === 'limited';
      if (!hasAccess && !member.rulesConfirmed) throw Conflict(NOT_VERIFIED);
      await markUnverified(tx, member.id, now);
      await deps.outbox.enqueue(tx, {
        kind: 'update_roles',
        discordId,
        add: ['unverified'],
        remove: ['verified', 'limited'],
        reason: auditLogReason(`unverified by staff (${actor.username})`),
      });
      await queueRoleConnectionUpdate(tx, deps.outbox, discordId);
      await deps.outbox.enqueue(tx, {
        kind: 'log_message',
        event: 'staff_action',
        discordId,
        text: `<@${discordId}> unverified by staff member ${actorLabel(actor)}`,
      });
      await appendAudit(
        tx,
        {
          actor: auditActorOf(actor),
          action: 'member.unverify',
          targetType: 'member',
          targetId: discordId,
          details: { from: member.guildAccess, rulesConfirmed: member.rulesConfirmed },
        },
        now,
      );
    });
  }

  /**
   * Deny / Kick and Ban: the member loses access (their record reads denied and they must accept the rules on
   * the website again) and is kicked or banned through the outbox, in the transaction that records it. From a
   * log message's button (`card`: the line's id), it acts once: a second press, or a kick and a ban pressed
   * together, is refused (409) and changes nothing.
   */
  async function removeFromServer(actor: MemberActor, discordId: string, how: Removal, options: { card?: number } = {}): Promise<void> {
    const now = deps.clock.now();
    await db.transaction(async (tx) => {
      // the member's row lock orders two presses: the second reads the first's audit row once it committed
      const member = await findMemberByDiscordId(tx, discordId, { forUpdate: true });
      if (!member) throw NotFound(USER_NOT_FOUND);
      if (
        options.card !== undefined &&
        (await actedFromCard(tx, { actions: ['member.kick', 'member.ban'], targetId: discordId, card: options.card }))
      )
        throw Conflict(ALREADY_REMOVED_FROM_CARD);
      await markDenied(tx, member.id, now);
      await deps.outbox.enqueue(tx, { kind: how, discordId, reason: auditLogReason(`${REMOVAL_WORDS[how]} by staff (${actor.username})`) });
      await deps.outbox.enqueue(tx, {
        kind: 'log_message',
        event: 'staff_action',
        discordId,
        text: `<@${discordId}> ${REMOVAL_WORDS[how]} by staff member ${actorLabel(actor)}`,
      });
      await appendAudit(
        tx,
        {
          actor: auditActorOf(actor),
          action: `member.${how}`,
          targetType: 'member',
          targetId: discordId,
          details: { from: member.guildAccess, ...(options.card !== undefined ? { card: options.card } : {}) },
        },
        now,
      );
    });
    if (deps.logger) logDenied(deps.logger, { discordId, why: `${REMOVAL_WORDS[how]} by staff (${actorLabel(actor)})` });
  }

  /** Manual Entry: a record the alt engine and the Discord button treat like any other. */
  async function manualEntry(actor: ActingStaff, input: ManualMemberInput): Promise<UserRecord> {
    const now = deps.clock.now();
    // a Limited Access record keeps only the Discord ID and username
    const values = input.status === 'limited_access' ? { ...input, avatarUrl: null } : input;
    return db.transaction(async (tx) => {
      const created = await insertManualMember(tx, values, now);
      if (!created) throw Conflict(RECORD_EXISTS, 'discordId');
      await appendAudit(
        tx,
        {
          actor: auditActorOf(actor),
          action: 'member.manual_entry',
          targetType: 'member',
          targetId: input.discordId,
          details: { status: input.status, rulesConfirmed: input.rulesConfirmed, manualAltStatus: input.manualAltStatus },
        },
        now,
      );
      return toUserRecord(created);
    });
  }

  /**
   * "Not the same person": staff dismiss one detected (or manual) link of a member. The
   * link stops counting everywhere (both members are recounted in this transaction), no
   * detection re-creates or changes it, and its evidence stays listed as dismissed.
   * 404 when the member or link is unknown or the link is another member's; 409 when it
   * is already dismissed. `discordId` names the member whose page it is done from.
   */
  async function dismissAltLink(actor: MemberActor, discordId: string, linkId: number, reason?: string | null): Promise<void> {
    const now = deps.clock.now();
    await db.transaction(async (tx) => {
      const member = await findMemberByDiscordId(tx, discordId);
      if (!member) throw NotFound(USER_NOT_FOUND);
      // the link is locked before the members' rows (the recount), the order detection takes
      const link = await findLinkOfMemberForUpdate(tx, member.id, linkId);
      if (!link) throw NotFound(ALT_LINK_NOT_FOUND);
      if (link.dismissedAt) throw Conflict(ALT_LINK_ALREADY_DISMISSED);
      const why = reason?.trim() || null;
      await markLinksDismissed(tx, [link.id], dismisserOf(actor), why, now);
      await recomputeAltCounters(tx, [link.mainMemberId, link.altMemberId]);
      await appendAudit(
        tx,
        {
          actor: auditActorOf(actor),
          action: 'member.alt_link_dismiss',
          targetType: 'member',
          targetId: discordId,
          details: linkAuditDetails(link, { withReason: why !== null }),
        },
        now,
      );
      await deps.outbox.enqueue(tx, {
        kind: 'log_message',
        event: 'staff_action',
        discordId,
        text: `🔗 Staff member ${actorLabel(actor)} dismissed the alt link between <@${link.mainDiscordId}> and <@${link.altDiscordId}>: not the same person`,
      });
    });
  }

  /** Undoes a dismissal: the link counts again (both members recounted). 404 as for dismissing; 409 when the link is open. */
  async function reopenAltLink(actor: MemberActor, discordId: string, linkId: number): Promise<void> {
    const now = deps.clock.now();
    await db.transaction(async (tx) => {
      const member = await findMemberByDiscordId(tx, discordId);
      if (!member) throw NotFound(USER_NOT_FOUND);
      const link = await findLinkOfMemberForUpdate(tx, member.id, linkId);
      if (!link) throw NotFound(ALT_LINK_NOT_FOUND);
      if (!link.dismissedAt) throw Conflict(ALT_LINK_NOT_DISMISSED);
      await markLinkReopened(tx, link.id, now);
      await recomputeAltCounters(tx, [link.mainMemberId, link.altMemberId]);
      await appendAudit(
        tx,
        {
          actor: auditActorOf(actor),
          action: 'member.alt_link_reopen',
          targetType: 'member',
          targetId: discordId,
          details: linkAuditDetails(link),
        },
        now,
      );
      await deps.outbox.enqueue(tx, {
        kind: 'log_message',
        event: 'staff_action',
        discordId,
        text: `🔗 Staff member ${actorLabel(actor)} reopened the alt link between <@${link.mainDiscordId}> and <@${link.altDiscordId}>`,
      });
    });
  }

  /**
   * Dismisses every open link that makes this member an alt or counts on it (medium or
   * certain, either direction; possible links count nowhere and stay open), e.g. when an
   * appeal is upheld. Returns how many were dismissed (0 changes nothing and writes no
   * audit row). One audit row per link; every member involved is recounted.
   */
  async function dismissAllAltLinks(actor: MemberActor, discordId: string, reason?: string | null): Promise<number> {
    const now = deps.clock.now();
    return db.transaction(async (tx) => {
      const member = await findMemberByDiscordId(tx, discordId);
      if (!member) throw NotFound(USER_NOT_FOUND);
      const links = await listCountingLinksOfMemberForUpdate(tx, member.id);
      if (links.length === 0) return 0;
      const why = reason?.trim() || null;
      await markLinksDismissed(
        tx,
        links.map((l) => l.id),
        dismisserOf(actor),
        why,
        now,
      );
      await recomputeAltCounters(tx, [member.id, ...links.flatMap((l) => [l.mainMemberId, l.altMemberId])]);
      for (const link of links) {
        await appendAudit(
          tx,
          {
            actor: auditActorOf(actor),
            action: 'member.alt_link_dismiss',
            targetType: 'member',
            targetId: discordId,
            details: linkAuditDetails(link, { withReason: why !== null, all: true }),
          },
          now,
        );
      }
      await deps.outbox.enqueue(tx, {
        kind: 'log_message',
        event: 'staff_action',
        discordId,
        text: `🔗 Staff member ${actorLabel(actor)} dismissed ${links.length === 1 ? 'the alt link' : `all ${links.length} alt links`} of <@${discordId}>: not the same person`,
      });
      return links.length;
    });
  }

  return {
    list,
    detail,
    remove,
    addNote,
    setAltStatus,
    manualVerify,
    unverify,
    removeFromServer,
    manualEntry,
    dismissAltLink,
    reopenAltLink,
    dismissAllAltLinks,
  };
}

export type MembersService = ReturnType<typeof createMembersService>;
