/** The staff module, as the rest of the server uses it. */
export { staffActor } from './staff-actor';
export { type StaffAccount } from './staff.repository';
export { BUSY_RETRY_SECONDS, createBoundedQueue } from './bounded-queue';
export { DEFAULT_LOGIN_THROTTLE } from './login-throttle';
export type { LoginThrottlePolicy } from './login-throttle';
export { DEFAULT_BCRYPT_COST, PASSWORD_MAX_BYTES, PASSWORD_TOO_LONG, createPasswordHasher } from './password';
export { defaultHashThreads, inlineBcrypt, workerBcrypt } from './password-pool';
export type { BcryptRunner } from './password-pool';
export { createMemorySetupCodeStore, prepareSetupCode } from './setup-code';
export type { SetupCodeStore } from './setup-code';
export { createStaffAccountsService } from './staff-accounts.service';
export type { StaffAccountsService } from './staff-accounts.service';
export { createStaffLoginService } from './staff-login.service';
export type { StaffLoginService } from './staff-login.service';
export { anyStaffExists, findStaffById } from './staff.repository';
export { throttledError } from './throttle-wait';
export { WAITING_PER_HASH_THREAD } from './password-pool';
