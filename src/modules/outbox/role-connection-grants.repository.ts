import { sql } from 'drizzle-orm';
import { roleConnectionGrants } from '../../db/schema';
import { selectRows, type Executor } from '../../db/client';
import { openSecret, sealSecret } from './sealed-secret';
import type { OutboxPort } from './outbox.types';

/**
 * A member's Linked Roles grant (table role_connection_grants): the OAuth tokens that let
 * Gatekeeper update their role connection after later decisions. Sealed with the outbox key
 * (outside the database); never logged. The row is deleted with the member's record (a foreign
 * key, so deletion and retention take it) and when Discord says the grant is gone.
 */
export interface RoleConnectionTokens {
  accessToken: string;
  refreshToken: string;
  accessExpiresAt: Date;
}

/** The tokens of Discord's token answer, with when the access token runs out. */
export function tokensFrom(
  tokens: { accessToken: string; refreshToken: string; expiresInSeconds: number },
  now: Date,
): RoleConnectionTokens {
  return {
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    accessExpiresAt: new Date(now.getTime() + tokens.expiresInSeconds * 1000),
  };
}

/** Stores (or replaces) the member's grant; one statement, for the caller's transaction (or a CTE of it). */
export function saveGrantQuery(executor: Executor, key: Buffer, discordId: string, tokens: RoleConnectionTokens, now: Date) {
  const sealed = {
    sealedRefreshToken: sealSecret(key, tokens.refreshToken),
    sealedAccessToken: sealSecret(key, tokens.accessToken),
    accessExpiresAt: tokens.accessExpiresAt,
    updatedAt: now,
  };
  return executor
    .insert(roleConnectionGrants)
    .values({ discordId, ...sealed, createdAt: now })
    .onConflictDoUpdate({ target: roleConnectionGrants.discordId, set: sealed });
}

export async function saveGrant(
  executor: Executor,
  key: Buffer,
  discordId: string,
  tokens: RoleConnectionTokens,
  now: Date,
): Promise<void> {
  await saveGrantQuery(executor, key, discordId, tokens, now);
}

/** The member's grant opened, or null when there is none (or it cannot be read with this key: useless either way). */
export async function readGrant(executor: Executor, key: Buffer, discordId: string): Promise<RoleConnectionTokens | null> {
  const [row] = await selectRows<{ sealed_refresh_token: string; sealed_access_token: string; access_expires_at: Date | string }>(
    executor,
    sql`select sealed_refresh_token, sealed_access_token, access_expires_at from role_connection_grants where discord_id = ${discordId}`,
  );
  if (!row) return null;
  try {
    return {
      refreshToken: openSecret(key, row.sealed_refresh_token),
      accessToken: openSecret(key, row.sealed_access_token),
      accessExpiresAt: new Date(row.access_expires_at),
    };
  } catch {
    return null;
  }
}

export async function deleteGrant(executor: Executor, discordId: string): Promise<void> {
  await executor.execute(sql`delete from role_connection_grants where discord_id = ${discordId}`);
}

/** The sealed refresh token of the member's grant, as stored (for a deletion to hand to the outbox before the row goes). */
export async function sealedRefreshTokenOf(executor: Executor, discordId: string): Promise<string | null> {
  const [row] = await selectRows<{ sealed_refresh_token: string }>(
    executor,
    sql`select sealed_refresh_token from role_connection_grants where discord_id = ${discordId}`,
  );
  return row?.sealed_refresh_token ?? null;
}

/**
 * Queues an update of the member's role connection after a decision that changes what it says
 * (unverify, certain alt, an approved appeal, the Complete Verification button), in the decision's
 * transaction; nothing when the member gave no grant. The outbox writes what the member's record
 * says when it runs, so an update still queued from before is dropped (one is enough).
 */
export async function queueRoleConnectionUpdate(tx: Executor, outbox: OutboxPort, discordId: string): Promise<boolean> {
  const [grant] = await selectRows<{ found: number }>(
    tx,
    sql`select 1 as found from role_connection_grants where discord_id = ${discordId}`,
  );
  if (!grant) return false;
  await tx.execute(
    sql`delete from discord_outbox where kind = 'role_connection' and discord_id = ${discordId} and status = 'pending' and sealed_secret is null`,
  );
  await outbox.enqueue(tx, { kind: 'role_connection', discordId });
  return true;
}

/**
 * A deletion of the member's records: their role connection is cleared at Discord (nothing
 * verified any more) and the grant revoked. The sealed refresh token moves to the outbox row,
 * which erases it when done; the grant row goes with the member's record. Run before the erase
 * (the grant is read here) and queue after it (the erase drops what the outbox holds of them).
 */
export async function takeGrantForDeletion(tx: Executor, discordId: string): Promise<((outbox: OutboxPort) => Promise<void>) | null> {
  const sealed = await sealedRefreshTokenOf(tx, discordId);
  if (!sealed) return null;
  return (outbox) => outbox.enqueue(tx, { kind: 'role_connection', discordId, sealedRefreshToken: sealed });
}

/**
 * The same for the retention purge: the grants of every member not seen since the cut-off (the
 * members it erases), read before the erase and queued after it, one clear each.
 */
export async function takeGrantsOfMembersSeenBefore(tx: Executor, cutoff: Date): Promise<((outbox: OutboxPort) => Promise<void>) | null> {
  const rows = await selectRows<{ discord_id: string; sealed_refresh_token: string }>(
    tx,
    sql`select g.discord_id, g.sealed_refresh_token from role_connection_grants g join members m on m.discord_id = g.discord_id where m.last_seen_at < ${cutoff} order by g.discord_id`,
  );
  if (rows.length === 0) return null;
  return (outbox) =>
    outbox.enqueue(
      tx,
      ...rows.map((row) => ({ kind: 'role_connection' as const, discordId: row.discord_id, sealedRefreshToken: row.sealed_refresh_token })),
    );
}
