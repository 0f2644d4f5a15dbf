export { type AppealOutcome, type MemberAppealView, useMemberAppeals, useOpenAppealCount } from './api/appeals';
export { AppealDecision } from './components/appeal-decision';
