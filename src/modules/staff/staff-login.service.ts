import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../clock';
import type { Database } from '../../db/client';
import { AppError } from '../../errors';
import { appendAudit } from '../audit';
import { BUSY, type BoundedQueue } from './bounded-queue';
import { deviceMatchesAccount, issueDeviceCookie, readDeviceCookie, type SignedDevice } from './device-cookie';
import { createKnownClients, type KnownClients } from './known-clients';
import {
  listKnownClientKeys,
  loginThrottleKeys,
  recordLoginSuccess,
  takeLoginAttempt,
  type LoginThrottlePolicy,
  type RefusingScope,
} from './login-throttle';
import type { PasswordHasher } from './password';
import { createFloodPause, createSignInGate, type FloodRule } from './sign-in-gate';
import { staffActor } from './staff-actor';
import {
  accountOf,
  bumpStaffEpoch,
  findStaffCredentials,
  recordStaffLoginFailure,
  recordStaffLoginSuccess,
  type StaffAccount,
  type StaffCredentials,
} from './staff.repository';

export type LoginResult =
  /** `deviceCookie`: a fresh device cookie (device-cookie.ts) for the browser that signed in */
  | { outcome: 'success'; staff: StaffAccount; deviceCookie: string }
  | { outcome: 'invalid' }
  | { outcome: 'throttled'; retryAfterMs: number; scope: RefusingScope | 'flood' };

export interface StaffLoginDeps {
  database: Database;
  clock: Clock;
  hasher: PasswordHasher;
  throttle: LoginThrottlePolicy;
  /** keys the throttle's hashes of usernames and addresses */
  hmacKey: Buffer;
  /** sign and check device cookies: the session cookie's keys, the first signs, every key verifies */
  deviceKeys: readonly string[];
  /** in front of sign-ins from unknown devices (sign-in-gate.ts); the default size unless a test asks for another */
  gate?: BoundedQueue;
  /** the known clients the gate lets past (known-clients.ts); read from the database unless a test gives its own */
  knownClients?: KnownClients;
  /** when a flood of unknown sign-ins pauses them (sign-in-gate.ts); the default unless a test asks for another */
  flood?: FloodRule;
}

export interface LoginInput {
  username: string;
  password: string;
  clientAddress: string;
  /** the request's device cookie, if any */
  deviceCookie?: string;
}

/** Staff sign-in and sign-out: throttled, timing-safe for unknown usernames, audited. */
export function createStaffLoginService(deps: StaffLoginDeps) {
  const { db } = deps.database;
  const gate = deps.gate ?? createSignInGate();
  const knownClients = deps.knownClients ?? createKnownClients({ read: (now) => listKnownClientKeys(db, now), clock: deps.clock });
  const flood = createFloodPause(deps.flood);
  /** how long the flood's pause in force still lasts (ms), 0 when there is none */
  const pauseLeft = () => flood.pausedFor(deps.clock.now().getTime());

  /**
   * A sign-in from a device whose cookie is signed for this username, or from a known client, goes
   * straight in; any other waits its turn at the gate, before it touches the database, or is
   * refused at once as busy, or as paused while a flood of such sign-ins lasts.
   */
  function login(input: LoginInput): Promise<LoginResult> {
    const signed = readDeviceCookie(deps.deviceKeys, input.deviceCookie, input.username, deps.clock.now());
    if (signed) return checkIn(input, signed);
    if (knownClients.has(loginThrottleKeys(deps.hmacKey, input.username, input.clientAddress).known)) return checkIn(input, null);
    // checked again when its turn comes: those that waited while the flood began are refused without a password check
    const unknownSignIn = () => pausedResult() ?? checkIn(input, null);
    return (pausedResult() ?? gate.run(unknownSignIn)).catch(async (error: unknown) => {
      if (error instanceof AppError && error.code === BUSY && flood.refused(deps.clock.now().getTime())) {
        const details = { scope: 'flood' };
        await appendAudit(
          db,
          { actor: { type: 'visitor' }, action: 'staff.login_throttled', targetType: 'staff', details },
          deps.clock.now(),
        );
      }
      throw error;
    });
  }

  function pausedResult(): Promise<LoginResult> | null {
    const retryAfterMs = pauseLeft();
    return retryAfterMs > 0 ? Promise.resolve({ outcome: 'throttled', retryAfterMs, scope: 'flood' }) : null;
  }

  async function checkIn(input: LoginInput, signed: SignedDevice | null): Promise<LoginResult> {
    const now = deps.clock.now();
    // a signed device is trusted once the account shows that its password has not changed since
    let account: StaffCredentials | null | undefined;
    let device: SignedDevice | undefined;
    if (signed) {
      account = await findStaffCredentials(db, input.username);
      if (account && deviceMatchesAccount(deps.deviceKeys, signed, account)) device = signed;
    }
    const keys = loginThrottleKeys(deps.hmacKey, input.username, input.clientAddress, device);
    const decision = await takeLoginAttempt(db, keys, now, deps.throttle);
    if (!decision.allowed) {
      if (decision.blockStarted) {
        await appendAudit(
          db,
          { actor: { type: 'visitor' }, action: 'staff.login_throttled', targetType: 'staff', details: { scope: decision.scope } },
          now,
        );
      }
      return { outcome: 'throttled', retryAfterMs: decision.retryAfterMs, scope: decision.scope };
    }
    if (decision.slowStarted && decision.slowedBy) {
      await appendAudit(
        db,
        { actor: { type: 'visitor' }, action: 'staff.login_throttled', targetType: 'staff', details: { scope: decision.slowedBy } },
        now,
      );
    }
    // the account's shared limit is exceeded: the password is still checked, after a fixed wait (see login-throttle.ts)
    if (decision.delayMs > 0) await sleep(decision.delayMs);

    if (account === undefined) account = await findStaffCredentials(db, input.username);
    // a client that signed in before goes ahead of a spray's queued checks and is never refused as busy; any
    // other check still waiting for a password thread when a flood's pause begins is refused as busy instead
    const check = decision.knownClient ? { priority: true } : { unwanted: () => pauseLeft() > 0 };
    const valid = account
      ? await deps.hasher.verify(input.password, account.passwordHash, check)
      : await deps.hasher.burn(input.password, check);
    const at = deps.clock.now();
    if (account && valid) {
      const staff = accountOf(account);
      await db.transaction(async (tx) => {
        await recordStaffLoginSuccess(tx, staff.id, at);
        await recordLoginSuccess(tx, keys, at, deps.throttle, decision.knownClient);
        await appendAudit(tx, { actor: staffActor(staff), action: 'staff.login', targetType: 'staff', targetId: String(staff.id) }, at);
      });
      knownClients.add(keys.known);
      return { outcome: 'success', staff, deviceCookie: issueDeviceCookie(deps.deviceKeys, account, at) };
    }
    await db.transaction(async (tx) => {
      if (account) await recordStaffLoginFailure(tx, account.id, at);
      // the typed username is kept only when it names an account: it may be a mistyped password
      await appendAudit(
        tx,
        {
          actor: { type: 'visitor' },
          action: 'staff.login_failed',
          targetType: 'staff',
          targetId: account ? String(account.id) : null,
          details: { reason: account ? 'wrong_password' : 'unknown_username' },
        },
        at,
      );
    });
    return { outcome: 'invalid' };
  }

  /** Ends every session of the account: a copied cookie dies with the one that logged out. */
  async function logout(staff: StaffAccount): Promise<void> {
    const now = deps.clock.now();
    await db.transaction(async (tx) => {
      await bumpStaffEpoch(tx, staff.id, now);
      await appendAudit(tx, { actor: staffActor(staff), action: 'staff.logout', targetType: 'staff', targetId: String(staff.id) }, now);
    });
  }

  return { login, logout };
}

export type StaffLoginService = ReturnType<typeof createStaffLoginService>;
