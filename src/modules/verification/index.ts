/** The verification module, as the rest of the server uses it. */
export { createAltDetector } from './alt-detector';
export { type CallbackOutcomes } from './callback-outcomes.repository';
export { hashToken } from './one-time-tokens.repository';
export { findMemberRowByDiscordId } from './verification.repository';
export { type VerificationService } from './verification.service';
export { createCallbackOutcomes } from './callback-outcomes.repository';
export type { CallbackClaim } from './callback-outcomes.repository';
export { SIGN_IN_EXCHANGE_BUDGET_MS, createSignInFlow, parseSignInResult, storedSignInResult } from './sign-in';
export type { SandboxNetworkPort, SignInResult, VpnCheckPort } from './sign-in';
export { CONSENT_TOKEN_TTL_MS, OAUTH_STATE_TTL_MS, createVerificationService } from './verification.service';
