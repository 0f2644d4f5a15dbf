import type { RunOptions } from './bounded-queue';
import { inlineBcrypt, type BcryptRunner } from './password-pool';
import { isPasswordTooShort, PASSWORD_TOO_SHORT, PASSWORD_MIN_LENGTH } from '../../shared/staff-account';

export { PASSWORD_MIN_LENGTH, PASSWORD_TOO_SHORT };

/** bcryptjs cost ≥ 12 in production; tests inject a lower cost through the deps. */
export const DEFAULT_BCRYPT_COST = 12;
/** bcrypt reads only the first 72 bytes: longer passwords would be silently truncated. */
export const PASSWORD_MAX_BYTES = 72;

export const PASSWORD_TOO_LONG = 'Password must be at most 72 bytes';

/** The rule every password that is set must pass; null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if (isPasswordTooShort(password)) return PASSWORD_TOO_SHORT;
  if (Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES) return PASSWORD_TOO_LONG;
  return null;
}

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** False for a wrong password, and for one longer than bcrypt can tell apart. `priority`: ahead of the queue, never refused as busy. */
  verify(password: string, hash: string, options?: RunOptions): Promise<boolean>;
  /** Spends the time of a real check when there is no account, so timing does not reveal usernames. */
  burn(password: string, options?: RunOptions): Promise<false>;
}

/**
 * Hashing and checking through `bcrypt`, where it runs: worker threads in the product
 * (password-pool.ts), so checks never hold the event loop and at most a few run at once.
 */
export function createPasswordHasher(cost = DEFAULT_BCRYPT_COST, bcrypt: BcryptRunner = inlineBcrypt()): PasswordHasher {
  let dummy: Promise<string> | undefined;
  const dummyHash = () => {
    dummy ??= bcrypt.hash('gatekeeper-no-such-account', cost);
    dummy.catch(() => (dummy = undefined)); // a refused (busy) first hash is tried again next time
    return dummy;
  };
  return {
    hash: (password) => bcrypt.hash(password, cost),
    async verify(password, hash, options) {
      if (Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES) {
        await bcrypt.compare(password.slice(0, 8), hash, options); // same cost, never a truncated match
        return false;
      }
      return bcrypt.compare(password, hash, options);
    },
    async burn(password, options) {
      await bcrypt.compare(password.slice(0, PASSWORD_MAX_BYTES), await dummyHash(), options);
      return false;
    },
  };
}
