export { type StaffAccount } from './api/staff';
