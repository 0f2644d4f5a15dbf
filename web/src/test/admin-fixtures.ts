import { act } from '@testing-library/react';
import { type UserDetail, type UserListPage, type UserRecord, USERS_PAGE_SIZE } from '@/features/members';
import type { StaffSession } from '@/features/admin-shell';
import type { StaffAccount } from '@/features/staff';
import { buildBadgeSubject } from '@shared/test-support/member-fixtures';

/** Fixtures and small helpers for the staff screens' tests. */

export const staffSession: StaffSession = { username: 'mod', staffId: 2, isSuperAdmin: false, isOwner: false };
export const superAdminSession: StaffSession = { username: 'owner', staffId: 1, isSuperAdmin: true, isOwner: true };

export function buildUser(overrides: Partial<UserRecord> = {}): UserRecord {
  return {
    id: 1,
    discordId: '100000000000000001',
    username: 'alice',
    avatarUrl: null,
    ...buildBadgeSubject(),
    timestamp: '2025-03-05T12:00:00.000Z',
    ...overrides,
  };
}

export function buildDetail(overrides: Partial<UserDetail> = {}): UserDetail {
  return {
    ...buildUser(),
    creationDate: '2020-01-02T10:00:00.000Z',
    fingerprint: '0123456789abcdef0123456789abcdef',
    fingerprintComponents: {
      canvas: true,
      webgl: true,
      audio: true,
      fonts: true,
      screen: true,
      timezone: true,
      language: true,
      platform: true,
    },
    verificationStatus: 'pending',
    adminNotes: [],
    alts: [],
    vpnProvider: null,
    serversVerifiedIn: 1,
    source: 'web',
    evidence: [],
    sharedNetwork: { marked: false, label: null },
    firstVerifiedAt: '2026-11-01T09:00:00.000Z',
    lastVerifiedAt: '2026-11-02T10:00:00.000Z',
    standingReason: null,
    ...overrides,
  };
}

export function buildStaff(overrides: Partial<StaffAccount> = {}): StaffAccount {
  return { id: 3, username: 'helper', isSuperAdmin: false, isOwner: false, discordId: null, ...overrides };
}

export function listPage(users: UserRecord[], extra: Partial<UserListPage> = {}): UserListPage {
  return { users, total: users.length, totalIsExact: true, totalIsCapped: false, nextCursor: null, ...extra };
}

/** The exact URL the dashboard asks for (the fetch mock matches path and query exactly). */
export function usersUrl({ search, filter = 'all', cursor }: { search?: string; filter?: string; cursor?: string } = {}): string {
  const params = new URLSearchParams();
  if (search) params.set('search', search);
  params.set('filter', filter);
  params.set('limit', String(USERS_PAGE_SIZE));
  if (cursor) params.set('cursor', cursor);
  return `/api/admin/users?${params.toString()}`;
}

/** Lets a few rounds of mocked requests and their renders land. */
export async function flush(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i += 1) {
    await act(async () => {
      await new Promise((resolve) => setTimeout(resolve, 0));
    });
  }
}
