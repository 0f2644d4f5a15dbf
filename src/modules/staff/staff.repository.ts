import { asc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { preparedPerExecutor } from '../../db/prepared-per-executor';
import { staff } from '../../db/schema';

/** A staff account as the rest of the code sees it: never the password hash. */
export interface StaffAccount {
  id: number;
  username: string;
  isSuperAdmin: boolean;
  isOwner: boolean;
  discordId: string | null;
  sessionEpoch: number;
}

export interface StaffCredentials extends StaffAccount {
  passwordHash: string;
}

type Row = typeof staff.$inferSelect;

function toAccount(row: Row): StaffAccount {
  return {
    id: row.id,
    username: row.username,
    isSuperAdmin: row.isSuperAdmin,
    isOwner: row.isOwner,
    discordId: row.discordId,
    sessionEpoch: row.sessionEpoch,
  };
}

/** Drops the password hash. */
export function accountOf(credentials: StaffCredentials): StaffAccount {
  return {
    id: credentials.id,
    username: credentials.username,
    isSuperAdmin: credentials.isSuperAdmin,
    isOwner: credentials.isOwner,
    discordId: credentials.discordId,
    sessionEpoch: credentials.sessionEpoch,
  };
}

export async function anyStaffExists(executor: Executor): Promise<boolean> {
  const rows = await executor.select({ id: staff.id }).from(staff).limit(1);
  return rows.length > 0;
}

/** The account every staff request reads (staff-session.ts), built once per executor (prepared-per-executor.ts). */
const preparedStaffById = preparedPerExecutor((executor) =>
  executor
    .select()
    .from(staff)
    .where(eq(staff.id, sql.placeholder('id')))
    .prepare('gk_staff_by_id'),
);

export async function findStaffById(executor: Executor, id: number, options: { forUpdate?: boolean } = {}): Promise<StaffAccount | null> {
  const [row] = options.forUpdate
    ? await executor.select().from(staff).where(eq(staff.id, id)).for('update')
    : await preparedStaffById(executor).execute({ id });
  return row ? toAccount(row) : null;
}

/** The account's password hash, for checking the current password before it is changed. */
export async function findStaffPasswordHash(executor: Executor, id: number, options: { forUpdate?: boolean } = {}): Promise<string | null> {
  const query = executor.select({ passwordHash: staff.passwordHash }).from(staff).where(eq(staff.id, id));
  const [row] = options.forUpdate ? await query.for('update') : await query;
  return row?.passwordHash ?? null;
}

/** Usernames are unique case-insensitively (the staff_username_lower_key index). */
export async function findStaffCredentials(executor: Executor, username: string): Promise<StaffCredentials | null> {
  const [row] = await executor
    .select()
    .from(staff)
    .where(sql`lower(${staff.username}) = lower(${username})`);
  return row ? { ...toAccount(row), passwordHash: row.passwordHash } : null;
}

export async function listStaff(executor: Executor): Promise<StaffAccount[]> {
  const rows = await executor.select().from(staff).orderBy(asc(staff.id));
  return rows.map(toAccount);
}

export interface NewStaff {
  username: string;
  passwordHash: string;
  isSuperAdmin?: boolean;
  isOwner?: boolean;
}

/** Null when the username is taken (any case) or, for an owner, when an owner already exists. */
export async function insertStaff(executor: Executor, input: NewStaff, now: Date): Promise<StaffAccount | null> {
  const [row] = await executor
    .insert(staff)
    .values({
      username: input.username,
      passwordHash: input.passwordHash,
      isSuperAdmin: input.isSuperAdmin ?? false,
      isOwner: input.isOwner ?? false,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing()
    .returning();
  return row ? toAccount(row) : null;
}

/** Sets a new password and ends every session of the account; returns the new epoch. */
export async function setStaffPassword(executor: Executor, id: number, passwordHash: string, now: Date): Promise<number | null> {
  const [row] = await executor
    .update(staff)
    .set({ passwordHash, sessionEpoch: sql`${staff.sessionEpoch} + 1`, failedLoginCount: 0, updatedAt: now })
    .where(eq(staff.id, id))
    .returning({ epoch: staff.sessionEpoch });
  return row?.epoch ?? null;
}

/** Grants or revokes super admin; a revocation also ends the account's sessions. */
export async function setStaffSuperAdmin(executor: Executor, id: number, isSuperAdmin: boolean, now: Date): Promise<void> {
  await executor
    .update(staff)
    .set({ isSuperAdmin, updatedAt: now, ...(isSuperAdmin ? {} : { sessionEpoch: sql`${staff.sessionEpoch} + 1` }) })
    .where(eq(staff.id, id));
}

/** Ends every session of the account (logout). */
export async function bumpStaffEpoch(executor: Executor, id: number, now: Date): Promise<void> {
  await executor
    .update(staff)
    .set({ sessionEpoch: sql`${staff.sessionEpoch} + 1`, updatedAt: now })
    .where(eq(staff.id, id));
}

export async function deleteStaff(executor: Executor, id: number): Promise<boolean> {
  const rows = await executor.delete(staff).where(eq(staff.id, id)).returning({ id: staff.id });
  return rows.length > 0;
}

export async function recordStaffLoginSuccess(executor: Executor, id: number, now: Date): Promise<void> {
  await executor.update(staff).set({ lastLoginAt: now, failedLoginCount: 0 }).where(eq(staff.id, id));
}

export async function recordStaffLoginFailure(executor: Executor, id: number, now: Date): Promise<void> {
  await executor
    .update(staff)
    .set({ failedLoginCount: sql`${staff.failedLoginCount} + 1`, lastFailedLoginAt: now })
    .where(eq(staff.id, id));
}
