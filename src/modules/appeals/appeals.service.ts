import {
  queueRoleConnectionUpdate,
  auditLogReason,
  grantVerified,
  VERIFIED_ROLE_CHANGE,
  type DiscordAction,
  type OutboxPort,
} from '../outbox';
import type { Logger } from '../../logger';
import { logAppealDecided, logAppealFiled } from '../../operator-events';
import type { Clock } from '../../clock';
import { countsAsAlt, describeAltEvidence } from '../../shared/alt-evidence-words';
import type { Database } from '../../db/client';
import { AppError, BadRequest, Conflict, NotFound } from '../../errors';
import {
  APPEAL_MESSAGE_MAX,
  APPEAL_REASON_MAX,
  checkAppealText,
  isAppealable,
  type AppealEvidence,
  type AppealListStatus,
  type AppealOutcome,
  type AppealQueue,
  type MemberAppealView,
  type StaffAppealView,
  type VisitorAppealState,
} from '../../shared/appeals';
import { memberStanding } from '../../shared/member-badges';
import { standingLabel } from '../../shared/member-states';
import { listAltsForMember, listAltsForMembers, type MemberAlt } from '../alts';
import { appendAudit } from '../audit';
import {
  actorLabel,
  auditActorOf,
  type MemberActor,
  toUserRecord,
  findMemberByDiscordId,
  markManuallyVerified,
  setManualAltStatus,
  type Member,
} from '../members';
import {
  countOpenAppeals,
  decideAppeal,
  findAppealForDecision,
  insertAppeal,
  latestAppealOf,
  listAppealsOfMember,
  listDecidedAppeals,
  listOpenAppeals,
  outcomeOf,
  type Appeal,
} from './appeals.repository';

/**
 * Dismisses the alt links that make a member a certain alt ('not the same person'; the
 * members service's rule): an approved appeal of a linked certain alt needs it.
 */
export interface AltLinkDismissal {
  dismissAllAltLinks(actor: MemberActor, discordId: string, reason?: string | null): Promise<unknown>;
}

/** How many of a member's counted alt links the appeals queue names (the strongest first). */
const TOP_LINKS = 3;

export const APPEAL_NOT_FOUND = 'Appeal';
export const APPEAL_ALREADY_DECIDED = 'This appeal has already been decided';
export const APPEAL_ALREADY_OPEN = 'You already have an open appeal: staff will review it';
export const NOTHING_TO_APPEAL = 'Your verification was not denied or limited: there is nothing to appeal';
export const NO_MEMBER_RECORD = 'No verification record for this Discord account: verify on the website first';
/** how many open appeals the queue and /appeals show at once */
export const APPEAL_QUEUE_LIMIT = 100;

const appealView = (a: Appeal) => ({
  status: a.status,
  message: a.message,
  createdAt: a.createdAt.toISOString(),
  decidedAt: a.decidedAt?.toISOString() ?? null,
  reason: a.status === 'rejected' ? a.decisionReason : null,
});

/**
 * Appeals (docs/behaviour.md#appeals): a visitor denied as a certain alt or kept at
 * Limited Access asks staff to review; staff approve (the member gets the Verified role
 * through the outbox) or reject with a reason the visitor sees. Every step writes an
 * audit row and a line for the logs channel in the transaction that makes it.
 */
export function createAppealsService(deps: {
  database: Database;
  clock: Clock;
  outbox: OutboxPort;
  altLinks: AltLinkDismissal;
  nudgeOutbox?: () => void;
  logger?: Logger;
}) {
  const { db } = deps.database;

  /** The visitor's standing and newest appeal; null when there is no member record. */
  async function visitorState(discordId: string): Promise<VisitorAppealState | null> {
    const member = await findMemberByDiscordId(db, discordId);
    if (!member) return null;
    const latest = await latestAppealOf(db, member.id);
    const standing = memberStanding(member);
    return {
      username: member.username,
      standing,
      canAppeal: isAppealable(standing) && latest?.status !== 'open',
      appeal: latest ? appealView(latest) : null,
    };
  }

  /** Files the visitor's appeal: plain text, bounded, one open appeal per member, only for a denial or Limited Access. */
  async function file(discordId: string, message: unknown) {
    const checked = checkAppealText(message, APPEAL_MESSAGE_MAX);
    if (!checked.ok) throw BadRequest(checked.error, 'message');
    const now = deps.clock.now();
    const appeal = await db.transaction(async (tx) => {
      const member = await findMemberByDiscordId(tx, discordId, { forUpdate: true });
      if (!member) throw new AppError(404, 'not_found', NO_MEMBER_RECORD);
      const standing = memberStanding(member);
      if (!isAppealable(standing)) throw Conflict(NOTHING_TO_APPEAL);
      const inserted = await insertAppeal(tx, { memberId: member.id, message: checked.text, standing }, now);
      if (!inserted) throw Conflict(APPEAL_ALREADY_OPEN);
      // the message stays out of the append-only log and the logs channel: retention must be able to delete it
      await appendAudit(
        tx,
        {
          actor: { type: 'visitor', id: discordId },
          action: 'appeal.filed',
          targetType: 'member',
          targetId: discordId,
          details: { appealId: inserted.id, standing, length: checked.text.length },
        },
        now,
      );
      await deps.outbox.enqueue(tx, {
        kind: 'log_message',
        event: 'appeal',
        discordId,
        text: `📨 <@${discordId}> asked staff to review their standing (${standingLabel(standing)}): appeal #${inserted.id} is in the dashboard's Appeals queue.`,
        card: { for: 'appeal', discordId, appealId: inserted.id },
      });
      return inserted;
    });
    deps.nudgeOutbox?.();
    if (deps.logger) logAppealFiled(deps.logger, { discordId, appealId: appeal.id });
    return appealView(appeal);
  }

  /** The evidence behind a member's standing, from their links (listAltsForMember's). */
  function evidenceOf(member: Member, memberAlts: readonly MemberAlt[]): AppealEvidence {
    // a dismissed link ('not the same person') is no evidence any more, and a possible one never accuses
    const alts = memberAlts.filter((a) => a.dismissal === null && countsAsAlt(a.confidence));
    const links = { certain: 0, medium: 0 };
    for (const alt of alts) if (alt.confidence !== 'possible') links[alt.confidence] += 1;
    return {
      links,
      topLinks: alts.slice(0, TOP_LINKS).map((a) => ({
        discordId: a.discordId,
        username: a.username,
        confidence: a.confidence === 'certain' ? 'certain' : 'medium',
        detectionMethod: a.detectionMethod,
        why: describeAltEvidence(a),
      })),
      vpnProvider: member.vpnProvider,
      gateReason: member.gateReason ?? null,
    };
  }

  /**
   * The open appeals, oldest first, or the decided ones, newest decided first: each with the
   * member's badges, the evidence behind the standing, and for a decided one who decided, when,
   * why (a rejection's reason) and what an approval did.
   */
  async function queue(status: AppealListStatus = 'open'): Promise<AppealQueue> {
    const [rows, open] = await Promise.all([
      status === 'open' ? listOpenAppeals(db, APPEAL_QUEUE_LIMIT) : listDecidedAppeals(db, APPEAL_QUEUE_LIMIT),
      countOpenAppeals(db),
    ]);
    // every member's links in one statement, however long the queue
    const altsOf = await listAltsForMembers(
      db,
      rows.map((r) => r.member.id),
    );
    const appeals: StaffAppealView[] = [];
    for (const { appeal, member } of rows) {
      appeals.push({
        id: appeal.id,
        message: appeal.message,
        status: appeal.status,
        standingAtFiling: appeal.standing,
        standing: memberStanding(member),
        createdAt: appeal.createdAt.toISOString(),
        member: { ...toUserRecord(member), ...(appeal.status === 'open' ? { openAppealId: appeal.id } : {}) },
        evidence: evidenceOf(member, altsOf.get(member.id) ?? []),
        decidedAt: appeal.decidedAt?.toISOString() ?? null,
        decidedByName: appeal.decidedByName,
        decisionReason: appeal.decisionReason,
        outcome: outcomeOf(appeal),
      });
    }
    return { appeals, open };
  }

  /** A member's appeals for their page, newest first; null when there is no such member. */
  async function ofMember(discordId: string): Promise<MemberAppealView[] | null> {
    const member = await findMemberByDiscordId(db, discordId);
    if (!member) return null;
    return (await listAppealsOfMember(db, member.id)).map((a) => ({
      id: a.id,
      status: a.status,
      standingAtFiling: a.standing,
      message: a.message,
      createdAt: a.createdAt.toISOString(),
      decidedAt: a.decidedAt?.toISOString() ?? null,
      decidedByName: a.decidedByName,
      decisionReason: a.decisionReason,
      outcome: outcomeOf(a),
    }));
  }

  /** What approving this open appeal would do now (the confirmation shows it). 404 unknown, 409 decided. */
  async function preview(appealId: number): Promise<AppealOutcome> {
    const { member } = await openForDecision(appealId);
    return planApproval(member, await listAltsForMember(db, member.id));
  }

  async function openForDecision(appealId: number) {
    const found = await findAppealForDecision(db, appealId);
    if (!found) throw NotFound(APPEAL_NOT_FOUND);
    if (found.appeal.status !== 'open') throw Conflict(APPEAL_ALREADY_DECIDED);
    return found;
  }

  /**
   * Approves: a certain alt's links are dismissed (and a manual 'certain alt' cleared), Limited
   * Access is lifted, and the Verified role is granted through the outbox. 409 when decided.
   */
  async function approve(actor: MemberActor, appealId: number): Promise<{ discordId: string; next: string; outcome: AppealOutcome }> {
    const before = await openForDecision(appealId);
    const plan = planApproval(before.member, await listAltsForMember(db, before.member.id));
    if (plan.dismissedLinks.length > 0) {
      // its own transaction (the members service's rule); a retry after a failure finds the links already gone
      await deps.altLinks.dismissAllAltLinks(actor, before.member.discordId, `Appeal #${appealId} approved`);
    }
    const now = deps.clock.now();
    const result = await db.transaction(async (tx) => {
      const found = await findAppealForDecision(tx, appealId);
      if (!found) throw NotFound(APPEAL_NOT_FOUND);
      if (found.appeal.status !== 'open') throw Conflict(APPEAL_ALREADY_DECIDED);
      const { member } = found;
      if (member.manualAltStatus === 'certain_alt') await setManualAltStatus(tx, member.id, null, now);
      const after = {
        ...member,
        manualAltStatus: member.manualAltStatus === 'certain_alt' ? null : member.manualAltStatus,
        status: 'verified' as const,
      };
      if (memberStanding(after) === 'certain_alt') throw Conflict('The alt links of this member could not be dismissed: nothing changed');
      await markManuallyVerified(tx, member.id, now);
      // what it did: the links dismissed above, and what this transaction changes
      const outcome: AppealOutcome = { ...planApproval(member, []), dismissedLinks: plan.dismissedLinks };
      await decideAppeal(tx, appealId, { status: 'approved', ...staffOf(actor), reason: null, outcome }, now);
      const discordId = member.discordId;
      // Denied at the button: the certain-alt action may have banned them, so the ban is lifted
      // first (no ban is fine). A kicked or banned member is not in the server: the role change
      // then finds no member, and verifying again joins them with the Verified role.
      const next = approvalNext(member.guildAccess === 'denied');
      const reason = auditLogReason(`appeal #${appealId} approved by staff (${actor.username})`);
      const unban: DiscordAction[] = member.guildAccess === 'denied' ? [{ kind: 'unban', discordId, reason }] : [];
      await deps.outbox.enqueue(tx, ...unban, grantVerified(discordId, reason), {
        kind: 'log_message',
        event: 'appeal',
        discordId,
        text: `✅ Appeal #${appealId} of <@${discordId}> approved by staff member ${actorLabel(actor)}. ${next}`,
      });
      // Linked Roles: verified again, and no longer flagged
      await queueRoleConnectionUpdate(tx, deps.outbox, discordId);
      await appendAudit(
        tx,
        {
          actor: auditActorOf(actor),
          action: 'appeal.approved',
          targetType: 'member',
          targetId: discordId,
          details: {
            appealId,
            standingAtFiling: found.appeal.standing,
            from: { status: member.status, manualAltStatus: member.manualAltStatus, guildAccess: member.guildAccess },
          },
        },
        now,
      );
      return { discordId, next, outcome };
    });
    deps.nudgeOutbox?.();
    if (deps.logger) logAppealDecided(deps.logger, { discordId: result.discordId, appealId, decision: 'approved', by: actorLabel(actor) });
    return result;
  }

  /** Rejects with a reason the visitor sees on the appeal page. 409 when decided. */
  async function reject(actor: MemberActor, appealId: number, reason: unknown): Promise<{ discordId: string }> {
    const checked = checkAppealText(reason, APPEAL_REASON_MAX, 'The reason');
    if (!checked.ok) throw BadRequest(checked.error, 'reason');
    const now = deps.clock.now();
    const result = await db.transaction(async (tx) => {
      const found = await findAppealForDecision(tx, appealId);
      if (!found) throw NotFound(APPEAL_NOT_FOUND);
      if (found.appeal.status !== 'open') throw Conflict(APPEAL_ALREADY_DECIDED);
      const discordId = found.member.discordId;
      await decideAppeal(tx, appealId, { status: 'rejected', ...staffOf(actor), reason: checked.text }, now);
      await deps.outbox.enqueue(tx, {
        kind: 'log_message',
        event: 'appeal',
        discordId,
        text: `❌ Appeal #${appealId} of <@${discordId}> rejected by staff member ${actorLabel(actor)}.`,
      });
      // the reason is shown to the visitor and kept with the appeal, not in the append-only log
      await appendAudit(
        tx,
        {
          actor: auditActorOf(actor),
          action: 'appeal.rejected',
          targetType: 'member',
          targetId: discordId,
          details: { appealId, standingAtFiling: found.appeal.standing, reasonLength: checked.text.length },
        },
        now,
      );
      return { discordId };
    });
    deps.nudgeOutbox?.();
    if (deps.logger) logAppealDecided(deps.logger, { discordId: result.discordId, appealId, decision: 'rejected', by: actorLabel(actor) });
    return result;
  }

  return { visitorState, file, queue, ofMember, preview, openCount: () => countOpenAppeals(db), approve, reject };
}

/**
 * What approving does to this member (docs/behaviour.md#appeals): a member linked as a certain
 * alt has every link that counts dismissed ('not the same person', either direction: the members
 * service's dismissAllAltLinks), a manual 'certain alt' is cleared, Limited Access is lifted, a
 * ban from the button's denial is lifted, and the Verified role replaces Unverified and Limited
 * Access. `alts` are the member's links as listAltsForMember gives them.
 */
export function planApproval(member: Member, alts: readonly MemberAlt[]): AppealOutcome {
  const dismissesLinks = member.isLinkedAsAlt && memberStanding(member) === 'certain_alt';
  const counting = dismissesLinks ? alts.filter((a) => a.dismissal === null && countsAsAlt(a.confidence)) : [];
  return {
    dismissedLinks: counting.map((a) => ({
      discordId: a.discordId,
      username: a.username,
      confidence: a.confidence,
      detectionMethod: a.detectionMethod,
    })),
    clearedManualStatus: member.manualAltStatus === 'certain_alt' ? 'certain_alt' : null,
    liftsLimitedAccess: member.status === 'limited_access',
    liftsBan: member.guildAccess === 'denied',
    roles: { add: [...VERIFIED_ROLE_CHANGE.add], remove: [...VERIFIED_ROLE_CHANGE.remove] },
  };
}

/**
 * What an approval does next, for the dashboard's answer and the logs channel. Gatekeeper cannot
 * tell from its records whether the member is still in the server, so it says both: in the server,
 * the Verified role now; gone (left, kicked, or banned as a certain alt, whose ban is lifted), the
 * Verified role on the join the website makes when they verify again (joinRoles).
 */
export function approvalNext(deniedAtButton: boolean): string {
  const gone = deniedAtButton ? 'If they were removed (kicked, or banned: the ban is lifted) or left' : 'If they have left';
  return `They get the Verified role now if they are in the server. ${gone}, they rejoin by verifying again on the website, and that join gives them the Verified role.`;
}

function staffOf(actor: MemberActor): { staffId: number | null; staffName: string } {
  return 'kind' in actor ? { staffId: null, staffName: actorLabel(actor) } : { staffId: actor.id, staffName: actor.username };
}

export type AppealsService = ReturnType<typeof createAppealsService>;
