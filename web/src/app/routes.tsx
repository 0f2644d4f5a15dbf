import { lazy } from 'react';
import { Route, Routes } from 'react-router-dom';
import { ConsentPage } from '@/features/consent/pages/consent-page';
import { ErrorPage } from '@/features/error/pages/error-page';
import { NotFoundPage } from '@/features/not-found/pages/not-found-page';
import { RulesPage } from '@/features/rules/pages/rules-page';
import { SuccessPage } from '@/features/success/pages/success-page';
import { AppealPage } from '@/features/appeal/pages/appeal-page';
import { AppLayout } from './app-layout';

// The policy texts are long and rarely opened: their own chunks.
const PrivacyPage = lazy(() => import('@/features/legal/pages/privacy-page').then((module) => ({ default: module.PrivacyPage })));
const TermsPage = lazy(() => import('@/features/legal/pages/terms-page').then((module) => ({ default: module.TermsPage })));

// Staff screens load in their own chunks, only when visited: visitors never download admin code.
const SetupPage = lazy(() => import('@/features/setup/pages/setup-page'));
const StaffLoginPage = lazy(() => import('@/features/admin-shell/pages/staff-login-page'));
const DashboardPage = lazy(() => import('@/features/members/pages/dashboard-page'));
const ManualEntryPage = lazy(() => import('@/features/members/pages/manual-entry-page'));
const CreateStaffPage = lazy(() => import('@/features/staff/pages/create-staff-page'));
const ChangePasswordPage = lazy(() => import('@/features/staff/pages/change-password-page'));
const StaffManagementPage = lazy(() => import('@/features/staff/pages/staff-management-page'));
const AuditLogPage = lazy(() => import('@/features/audit/pages/audit-log-page'));
const UserDetailPage = lazy(() => import('@/features/members/pages/user-detail-page'));
const SettingsPage = lazy(() => import('@/features/settings/pages/settings-page'));
const StatisticsPage = lazy(() => import('@/features/statistics/pages/statistics-page'));
const AppealsPage = lazy(() => import('@/features/appeals-queue/pages/appeals-page'));

/** The pages and their paths. */
export function AppRoutes() {
  return (
    <Routes>
      <Route element={<AppLayout />}>
        <Route index element={<ConsentPage />} />
        <Route path="rules" element={<RulesPage />} />
        <Route path="privacy" element={<PrivacyPage />} />
        <Route path="terms" element={<TermsPage />} />
        <Route path="success" element={<SuccessPage />} />
        <Route path="error" element={<ErrorPage />} />
        <Route path="appeal" element={<AppealPage />} />
        <Route path="setup" element={<SetupPage />} />
        <Route path="admin">
          <Route index element={<DashboardPage />} />
          <Route path="login" element={<StaffLoginPage />} />
          <Route path="manual-entry" element={<ManualEntryPage />} />
          <Route path="create-staff" element={<CreateStaffPage />} />
          <Route path="account" element={<ChangePasswordPage />} />
          <Route path="staff" element={<StaffManagementPage />} />
          <Route path="audit" element={<AuditLogPage />} />
          <Route path="settings" element={<SettingsPage />} />
          <Route path="statistics" element={<StatisticsPage />} />
          <Route path="appeals" element={<AppealsPage />} />
          <Route path="user/:discordId" element={<UserDetailPage />} />
        </Route>
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
