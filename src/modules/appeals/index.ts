/** The appeals module, as the rest of the server uses it. */
export { purgeDecidedAppealsBefore } from './appeals.repository';
export { APPEAL_SIGN_IN_RUNNING_MS, createAppealSignIn, parseAppealSignInResult, type AppealSignInResult } from './appeal-sign-in';
export { APPEAL_QUEUE_LIMIT, NO_MEMBER_RECORD, createAppealsService, type AppealsService } from './appeals.service';
