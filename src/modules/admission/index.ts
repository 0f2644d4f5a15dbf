/** The admission module, as the rest of the server uses it. */
export { accountAgeDays, gateMessage } from './admission-rules';
export { setMemberGate } from './admission.repository';
export {
  type AdmissionGate,
  type AdmissionRead,
  type AdmissionReadQuery,
  createAdmissionService,
  type AdmissionService,
} from './admission.service';
export { decideAtButton, decideButtonOutcome, type ButtonDecision } from './button-outcome';
