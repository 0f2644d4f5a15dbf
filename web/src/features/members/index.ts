export { type UserDetail, type UserListPage, type UserRecord, USERS_PAGE_SIZE } from './api/members';
export { MemberBadgeList } from './components/member-badge-list';
