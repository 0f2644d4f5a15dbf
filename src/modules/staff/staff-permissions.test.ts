import { staffChangeRefusal, type StaffChange } from './staff-permissions';

const owner = { id: 1, isSuperAdmin: true, isOwner: true };
const admin = { id: 2, isSuperAdmin: true, isOwner: false };
const admin2 = { id: 5, isSuperAdmin: true, isOwner: false };
const mod = { id: 3, isSuperAdmin: false, isOwner: false };
const mod2 = { id: 4, isSuperAdmin: false, isOwner: false };

describe('staffChangeRefusal', () => {
  const table: [string, typeof owner, typeof owner, StaffChange, boolean][] = [
    ['owner changes own password', owner, owner, 'password', true],
    ['admin changes owner password', admin, owner, 'password', false],
    ['admin changes own password', admin, admin, 'password', true],
    ['admin changes another admin password', admin, admin2, 'password', true],
    ['admin changes mod password', admin, mod, 'password', true],
    ['mod changes own password', mod, mod, 'password', true],
    ['mod changes another mod password', mod, mod2, 'password', false],
    ['owner demotes self', owner, owner, 'super_admin', false],
    ['admin demotes owner', admin, owner, 'super_admin', false],
    ['admin promotes mod', admin, mod, 'super_admin', true],
    ['admin demotes another admin', admin, admin2, 'super_admin', true],
    ['mod promotes mod', mod, mod2, 'super_admin', false],
    ['owner deletes self', owner, owner, 'delete', false],
    ['admin deletes owner', admin, owner, 'delete', false],
    ['admin deletes self', admin, admin, 'delete', false],
    ['admin deletes mod', admin, mod, 'delete', true],
    ['owner deletes admin', owner, admin, 'delete', true],
    ['mod deletes mod', mod, mod2, 'delete', false],
  ];
  it.each(table)('%s → allowed %s', (_name, actor, target, change, allowed) => {
    expect(staffChangeRefusal(actor, target, change) === null).toBe(allowed);
  });
});
