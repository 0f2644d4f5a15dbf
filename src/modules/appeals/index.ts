/** The appeals module, as the rest of the server uses it. */
export { purgeDecidedAppealsBefore } from './appeals.repository';
