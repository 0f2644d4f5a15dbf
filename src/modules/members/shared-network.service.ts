import type { Clock } from '../../clock';
import type { Database, Executor } from '../../db/client';
import { Conflict, NotFound } from '../../errors';
import { findSharedNetwork, listSharedNetworks, markSharedNetwork, unmarkSharedNetwork } from '../alts';
import { appendAudit } from '../audit';
import type { OutboxPort } from '../outbox';
import { actorLabel, auditActorOf, type MemberActor } from './member-actor';
import { countMembersOnNetworks, findMemberByDiscordId, latestMemberOnNetworks, type Member } from './members.repository';
import { USER_NOT_FOUND } from './members.service';

export const NO_NETWORK_ON_RECORD = 'This member has no network on record (Limited Access records keep none)';
export const ALREADY_SHARED = "This member's network is already marked as shared";
export const NOT_SHARED = "This member's network is not marked as shared";
/** Labels are short names such as 'school' or 'family' (the command and the route share the limit). */
export const SHARED_NETWORK_LABEL_MAX = 100;

/** Only this much of a network hash is ever shown: enough to tell networks apart, useless to match them. */
const SHOWN_HASH_CHARS = 12;

export interface SharedNetworkView {
  /** the first 12 characters of the network hash, for display only */
  networkHash: string;
  label: string | null;
  markedBy: string | null;
  createdAt: string;
  /** member records currently on this network */
  members: number;
  /** the member on it who verified last, through whom staff can unmark it; null when none is left */
  member: { discordId: string; username: string } | null;
}

export interface SharedNetworkChange {
  label: string | null;
  /** member records on the network (the one acted on included) */
  members: number;
}

/**
 * Staff mark a member's network as shared (household, school, carrier NAT) so that IP
 * and network matches there stop counting at the next verification (alt-scoring.ts
 * reads the marking). The network is always named through a member, never by its hash.
 */
export function createSharedNetworkService(deps: { database: Database; clock: Clock; outbox: OutboxPort }) {
  const { db } = deps.database;

  async function memberNetwork(tx: Executor, discordId: string): Promise<{ member: Member; networkHash: string }> {
    const member = await findMemberByDiscordId(tx, discordId, { forUpdate: true });
    if (!member) throw NotFound(USER_NOT_FOUND);
    if (!member.networkHash) throw Conflict(NO_NETWORK_ON_RECORD);
    return { member, networkHash: member.networkHash };
  }

  async function membersOn(tx: Executor, networkHash: string): Promise<number> {
    return (await countMembersOnNetworks(tx, [networkHash])).get(networkHash) ?? 0;
  }

  async function list(): Promise<SharedNetworkView[]> {
    const networks = await listSharedNetworks(db);
    const hashes = networks.map((n) => n.networkHash);
    const [counts, latest] = await Promise.all([countMembersOnNetworks(db, hashes), latestMemberOnNetworks(db, hashes)]);
    return networks.map((n) => ({
      networkHash: n.networkHash.slice(0, SHOWN_HASH_CHARS),
      label: n.label,
      markedBy: n.markedBy,
      createdAt: n.createdAt.toISOString(),
      members: counts.get(n.networkHash) ?? 0,
      member: latest.get(n.networkHash) ?? null,
    }));
  }

  async function markForMember(actor: MemberActor, discordId: string, label: string | null): Promise<SharedNetworkChange> {
    const now = deps.clock.now();
    return db.transaction(async (tx) => {
      const { networkHash } = await memberNetwork(tx, discordId);
      const marked = await markSharedNetwork(tx, { networkHash, label, markedBy: actorLabel(actor), now });
      if (!marked) throw Conflict(ALREADY_SHARED);
      const members = await membersOn(tx, networkHash);
      // neither the hash nor the label goes into the append-only log: both may identify a household
      await appendAudit(
        tx,
        {
          actor: auditActorOf(actor),
          action: 'shared_network.mark',
          targetType: 'member',
          targetId: discordId,
          details: { labelled: label !== null, members },
        },
        now,
      );
      await deps.outbox.enqueue(tx, {
        kind: 'log_message',
        event: 'staff_action',
        discordId,
        text: `🏠 Staff member ${actorLabel(actor)} marked the network of <@${discordId}> as shared${label ? ` ("${label}")` : ''}: IP and network matches there no longer count (${members} member record${members === 1 ? '' : 's'} on it)`,
      });
      return { label, members };
    });
  }

  async function unmarkForMember(actor: MemberActor, discordId: string): Promise<SharedNetworkChange> {
    const now = deps.clock.now();
    return db.transaction(async (tx) => {
      const { networkHash } = await memberNetwork(tx, discordId);
      const marking = await findSharedNetwork(tx, networkHash);
      if (!marking || !(await unmarkSharedNetwork(tx, networkHash))) throw Conflict(NOT_SHARED);
      const members = await membersOn(tx, networkHash);
      await appendAudit(
        tx,
        { actor: auditActorOf(actor), action: 'shared_network.unmark', targetType: 'member', targetId: discordId, details: { members } },
        now,
      );
      await deps.outbox.enqueue(tx, {
        kind: 'log_message',
        event: 'staff_action',
        discordId,
        text: `🏠 Staff member ${actorLabel(actor)} removed the shared marking of the network of <@${discordId}>: IP and network matches there count again`,
      });
      return { label: marking.label, members };
    });
  }

  return { list, markForMember, unmarkForMember };
}

export type SharedNetworkService = ReturnType<typeof createSharedNetworkService>;
