import type { Clock } from '../../clock';
import type { Database, Tx } from '../../db/client';
import { BadRequest, Conflict, Forbidden, NotFound } from '../../errors';
import { appendAudit } from '../audit';
import { clearOwnPasswordChecks, ownPasswordThrottleKey, takeOwnPasswordCheck, type LoginThrottlePolicy } from './login-throttle';
import { passwordProblem, type PasswordHasher } from './password';
import { setupCodeMatches, type SetupCodeStore } from './setup-code';
import { staffActor } from './staff-actor';
import { staffChangeRefusal } from './staff-permissions';
import { throttledError } from './throttle-wait';
import {
  anyStaffExists,
  deleteStaff,
  findStaffById,
  findStaffPasswordHash,
  insertStaff,
  listStaff,
  setStaffPassword,
  setStaffSuperAdmin,
  type StaffAccount,
} from './staff.repository';

export interface StaffAccountsDeps {
  database: Database;
  clock: Clock;
  hasher: PasswordHasher;
  setupCode: SetupCodeStore;
  /** its pair rule throttles wrong current passwords, as sign-in does */
  throttle: LoginThrottlePolicy;
  /** keys the throttle's hash of the account */
  hmacKey: Buffer;
}

export const SETUP_CLOSED = 'Setup has already been completed';
export const INVALID_SETUP_CODE = 'Invalid setup code';
export const USERNAME_TAKEN = 'Username already exists';
export const WRONG_CURRENT_PASSWORD = 'Current password is incorrect';
export const SAME_PASSWORD = 'The new password must differ from the current one';

function assertPassword(password: string, field: string): void {
  const problem = passwordProblem(password);
  if (problem) throw BadRequest(problem, field);
}

/** Owner set-up and staff account management; every change is audited in its own transaction. */
export function createStaffAccountsService(deps: StaffAccountsDeps) {
  const { db } = deps.database;

  async function setupAvailable(): Promise<boolean> {
    return !(await anyStaffExists(db));
  }

  /** Creates the protected owner; exactly one wins even when two requests race. */
  async function setupOwner(input: { setupCode: string; username: string; password: string }): Promise<StaffAccount> {
    if (await anyStaffExists(db)) throw Conflict(SETUP_CLOSED);
    if (!setupCodeMatches(deps.setupCode.current(), input.setupCode)) throw Forbidden(INVALID_SETUP_CODE);
    assertPassword(input.password, 'password');
    const passwordHash = await deps.hasher.hash(input.password);
    const now = deps.clock.now();
    const owner = await db.transaction(async (tx) => {
      if (await anyStaffExists(tx)) throw Conflict(SETUP_CLOSED);
      // the single-owner unique index makes a concurrent second insert a no-op
      const created = await insertStaff(tx, { username: input.username, passwordHash, isSuperAdmin: true, isOwner: true }, now);
      if (!created) throw Conflict(SETUP_CLOSED);
      await appendAudit(
        tx,
        { actor: staffActor(created), action: 'staff.setup', targetType: 'staff', targetId: String(created.id), details: { owner: true } },
        now,
      );
      return created;
    });
    deps.setupCode.consume();
    return owner;
  }

  /** A regular staff account (spec: Create Staff page and the Staff Management card). */
  async function createStaff(
    actor: StaffAccount,
    input: { username: string; password: string },
    via: 'create_staff' | 'staff_management',
  ): Promise<StaffAccount> {
    assertPassword(input.password, 'password');
    const passwordHash = await deps.hasher.hash(input.password);
    const now = deps.clock.now();
    return db.transaction(async (tx) => {
      const created = await insertStaff(tx, { username: input.username, passwordHash }, now);
      if (!created) throw Conflict(USERNAME_TAKEN, 'username');
      await appendAudit(
        tx,
        {
          actor: staffActor(actor),
          action: 'staff.create',
          targetType: 'staff',
          targetId: String(created.id),
          details: { username: created.username, via },
        },
        now,
      );
      return created;
    });
  }

  async function loadTarget(tx: Tx, id: number): Promise<StaffAccount> {
    const target = await findStaffById(tx, id, { forUpdate: true });
    if (!target) throw NotFound('Staff account');
    return target;
  }

  /** Returns the account's new session epoch (every session of it ends). */
  async function changePassword(actor: StaffAccount, targetId: number, newPassword: string): Promise<{ epoch: number }> {
    assertPassword(newPassword, 'newPassword');
    const passwordHash = await deps.hasher.hash(newPassword);
    const now = deps.clock.now();
    return db.transaction(async (tx) => {
      const target = await loadTarget(tx, targetId);
      const refusal = staffChangeRefusal(actor, target, 'password');
      if (refusal) throw Forbidden(refusal);
      const epoch = (await setStaffPassword(tx, target.id, passwordHash, now))!;
      await appendAudit(
        tx,
        {
          actor: staffActor(actor),
          action: 'staff.password_change',
          targetType: 'staff',
          targetId: String(target.id),
          details: { username: target.username },
        },
        now,
      );
      return { epoch };
    });
  }

  /**
   * A staff member changes their own password (every account, the owner included): the current
   * password must be given, and every session of the account ends; the route moves the session
   * that made the change to the new epoch. Returns that epoch.
   */
  async function changeOwnPassword(
    actor: StaffAccount,
    input: { currentPassword: string; newPassword: string },
  ): Promise<{ epoch: number }> {
    assertPassword(input.newPassword, 'newPassword');
    const storedHash = await findStaffPasswordHash(db, actor.id);
    if (storedHash === null) throw NotFound('Staff account');
    // counted before the check, so parallel guesses cannot pass the limit; a refused one never reaches the hash
    const throttleKey = ownPasswordThrottleKey(deps.hmacKey, actor.id);
    const refusal = await takeOwnPasswordCheck(db, throttleKey, deps.clock.now(), deps.throttle.pair);
    if (refusal) {
      if (refusal.blockStarted) {
        await appendAudit(
          db,
          {
            actor: staffActor(actor),
            action: 'staff.login_throttled',
            targetType: 'staff',
            targetId: String(actor.id),
            details: { scope: refusal.scope },
          },
          deps.clock.now(),
        );
      }
      throw throttledError('own_password', refusal.retryAfterMs);
    }
    if (!(await deps.hasher.verify(input.currentPassword, storedHash))) {
      await appendAudit(
        db,
        {
          actor: staffActor(actor),
          action: 'staff.password_change_failed',
          targetType: 'staff',
          targetId: String(actor.id),
          details: { reason: 'wrong_current_password' },
        },
        deps.clock.now(),
      );
      throw BadRequest(WRONG_CURRENT_PASSWORD, 'currentPassword');
    }
    await clearOwnPasswordChecks(db, throttleKey);
    if (input.currentPassword === input.newPassword) throw BadRequest(SAME_PASSWORD, 'newPassword');
    const passwordHash = await deps.hasher.hash(input.newPassword);
    const now = deps.clock.now();
    return db.transaction(async (tx) => {
      // the hash is read again under the row lock: a concurrent change in between wins, this one is refused
      const lockedHash = await findStaffPasswordHash(tx, actor.id, { forUpdate: true });
      if (lockedHash !== storedHash) throw BadRequest(WRONG_CURRENT_PASSWORD, 'currentPassword');
      const epoch = (await setStaffPassword(tx, actor.id, passwordHash, now))!;
      await appendAudit(
        tx,
        {
          actor: staffActor(actor),
          action: 'staff.password_change',
          targetType: 'staff',
          targetId: String(actor.id),
          details: { username: actor.username, own: true },
        },
        now,
      );
      return { epoch };
    });
  }

  async function setSuperAdmin(actor: StaffAccount, targetId: number, isSuperAdmin: boolean): Promise<void> {
    const now = deps.clock.now();
    await db.transaction(async (tx) => {
      const target = await loadTarget(tx, targetId);
      const refusal = staffChangeRefusal(actor, target, 'super_admin');
      if (refusal) throw Forbidden(refusal);
      if (target.isSuperAdmin === isSuperAdmin) return; // nothing changes, nothing to record
      await setStaffSuperAdmin(tx, target.id, isSuperAdmin, now);
      await appendAudit(
        tx,
        {
          actor: staffActor(actor),
          action: isSuperAdmin ? 'staff.promote' : 'staff.demote',
          targetType: 'staff',
          targetId: String(target.id),
          details: { username: target.username },
        },
        now,
      );
    });
  }

  async function removeStaff(actor: StaffAccount, targetId: number): Promise<void> {
    const now = deps.clock.now();
    await db.transaction(async (tx) => {
      const target = await loadTarget(tx, targetId);
      const refusal = staffChangeRefusal(actor, target, 'delete');
      if (refusal) throw Forbidden(refusal);
      await deleteStaff(tx, target.id);
      await appendAudit(
        tx,
        {
          actor: staffActor(actor),
          action: 'staff.delete',
          targetType: 'staff',
          targetId: String(target.id),
          details: { username: target.username },
        },
        now,
      );
    });
  }

  return {
    setupAvailable,
    setupOwner,
    createStaff,
    listStaff: () => listStaff(db),
    changePassword,
    changeOwnPassword,
    setSuperAdmin,
    removeStaff,
  };
}

export type StaffAccountsService = ReturnType<typeof createStaffAccountsService>;
