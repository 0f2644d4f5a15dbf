/** The staff module, as the rest of the server uses it. */
export { staffActor } from './staff-actor';
export { type StaffAccount, anyStaffExists, findStaffById } from './staff.repository';
export { BUSY_RETRY_SECONDS, createBoundedQueue, type BoundedQueue } from './bounded-queue';
export { DEVICE_COOKIE, DEVICE_COOKIE_MAX_AGE_MS, deviceCookieFrom } from './device-cookie';
export { createSignInGate, SIGN_IN_FLOOD, SIGN_IN_GATE, type FloodRule } from './sign-in-gate';
export { DEFAULT_LOGIN_THROTTLE, type LoginThrottlePolicy } from './login-throttle';
export { DEFAULT_BCRYPT_COST, PASSWORD_MAX_BYTES, PASSWORD_TOO_LONG, createPasswordHasher } from './password';
export { defaultHashThreads, inlineBcrypt, workerBcrypt, type BcryptRunner, WAITING_PER_HASH_THREAD } from './password-pool';
export { createMemorySetupCodeStore, prepareSetupCode, type SetupCodeStore } from './setup-code';
export { createStaffAccountsService, type StaffAccountsService } from './staff-accounts.service';
export { createStaffLoginService, type StaffLoginService } from './staff-login.service';
export { throttledError } from './throttle-wait';
