import { sql } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { adminNotes, altLinks, members, verificationAttempts } from '../db/schema';
import { DISCORD_EPOCH_MS } from '../shared/discord-snowflake';

let sequence = 0;
/** A unique, realistic Discord snowflake. */
export function nextSnowflake(at = new Date()): string {
  sequence = (sequence + 1) % 4096;
  return (((BigInt(at.getTime()) - DISCORD_EPOCH_MS) << 22n) | BigInt(sequence)).toString();
}

export type MemberInsert = typeof members.$inferInsert;
export type AttemptInsert = typeof verificationAttempts.$inferInsert;

/** Inserts a member with sensible defaults: `buildMember(db, { status: 'limited_access' })`. */
export async function buildMember(db: Executor, overrides: Partial<MemberInsert> = {}) {
  const discordId = overrides.discordId ?? nextSnowflake();
  const [row] = await db
    .insert(members)
    .values({ discordId, username: `user${discordId.slice(-6)}`, rulesConfirmed: true, verificationCount: 1, ...overrides })
    .returning();
  return row!;
}

/** Inserts an attempt of the member; its account's creation time is read from the member's Discord id, as a sign-in writes it. */
export async function buildAttempt(db: Executor, memberId: number, overrides: Partial<AttemptInsert> = {}) {
  const accountCreatedAt = sql`(select discord_account_created_at(discord_id) from ${members} where id = ${memberId})`;
  const [row] = await db
    .insert(verificationAttempts)
    .values({ memberId, outcome: 'verified', accountCreatedAt, ...overrides })
    .returning();
  return row!;
}

export async function buildLink(
  db: Executor,
  mainMemberId: number,
  altMemberId: number,
  overrides: Partial<typeof altLinks.$inferInsert> = {},
) {
  const [row] = await db
    .insert(altLinks)
    .values({ mainMemberId, altMemberId, confidence: 'certain', detectionMethod: 'both', ...overrides })
    .returning();
  return row!;
}

export async function buildNote(
  db: Executor,
  memberId: number,
  note = 'watch this one',
  overrides: Partial<typeof adminNotes.$inferInsert> = {},
) {
  const [row] = await db
    .insert(adminNotes)
    .values({ memberId, note, ...overrides })
    .returning();
  return row!;
}
