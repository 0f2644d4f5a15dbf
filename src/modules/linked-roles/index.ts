// The linked-roles module's public entry: code outside src/modules/linked-roles/ imports only from here.
export { createLinkedRolesSignIn } from './linked-roles-sign-in';
export { ROLE_CONNECTION_METADATA, roleConnectionFor } from './role-connection';
