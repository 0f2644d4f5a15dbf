/**
 * Who may change which staff account (docs/behaviour.md#staff-roles-and-sessions): the one place the rule
 * lives. The protected owner can be neither demoted nor deleted, and only the owner
 * changes the owner's password; nobody deletes their own account.
 */

export type StaffChange = 'password' | 'super_admin' | 'delete';

interface Party {
  id: number;
  isSuperAdmin: boolean;
  isOwner: boolean;
}

/** Null when the actor may make the change, else the reason it may not (a 403 message). */
export function staffChangeRefusal(actor: Party, target: Party, change: StaffChange): string | null {
  const self = actor.id === target.id;
  switch (change) {
    case 'password':
      if (target.isOwner && !self) return "Only the owner can change the owner's password";
      if (!self && !actor.isSuperAdmin) return "Only super admins can change other accounts' passwords";
      return null;
    case 'super_admin':
      if (target.isOwner) return 'The owner account cannot be changed';
      if (!actor.isSuperAdmin) return 'Only super admins can grant or revoke super admin';
      return null;
    case 'delete':
      if (target.isOwner) return 'The owner account cannot be deleted';
      if (self) return 'You cannot delete your own account';
      if (!actor.isSuperAdmin) return 'Only super admins can delete staff accounts';
      return null;
  }
}
