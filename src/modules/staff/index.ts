/** The staff module, as the rest of the server uses it. */
export { staffActor } from './staff-actor';
export { type StaffAccount } from './staff.repository';
