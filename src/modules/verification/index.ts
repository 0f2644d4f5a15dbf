/** The verification module, as the rest of the server uses it. */
export { createAltDetector } from './alt-detector';
export { type CallbackOutcomes } from './callback-outcomes.repository';
export { hashToken } from './one-time-tokens.repository';
export { findMemberRowByDiscordId } from './verification.repository';
export { type VerificationService } from './verification.service';
