export { type StaffSession, useStaffAuth } from './api/session';
export {
  FilePlusIcon,
  KeyIcon,
  LogOutIcon,
  ScrollIcon,
  SearchIcon,
  SettingsIcon,
  TrashIcon,
  UserPlusIcon,
  UsersIcon,
} from './components/admin-icons';
export { AdminPageHeader } from './components/admin-page-header';
export { SessionProblem } from './components/session-problem';
export { formatDate, formatDateTime } from './format-date';
export { useAdminSession } from './hooks/use-admin-session';
export { STAFF_LOGIN_PATH, useSignInRedirect } from './hooks/use-sign-in-redirect';
