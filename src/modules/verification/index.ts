/** The verification module, as the rest of the server uses it. */
export { createAltDetector } from './alt-detector';
export { type CallbackOutcomes, createCallbackOutcomes, type CallbackClaim } from './callback-outcomes.repository';
export { hashToken } from './one-time-tokens.repository';
export { findMemberRowByDiscordId } from './verification.repository';
export { type VerificationService, CONSENT_TOKEN_TTL_MS, OAUTH_STATE_TTL_MS, createVerificationService } from './verification.service';
export {
  SIGN_IN_EXCHANGE_BUDGET_MS,
  createSignInFlow,
  parseSignInResult,
  storedSignInResult,
  type SandboxNetworkPort,
  type SignInResult,
  type VpnCheckPort,
} from './sign-in';
