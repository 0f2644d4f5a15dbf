import { settingsChangeSchema, settingsShape, validStored } from './settings.schema';

describe('the role to ping for alarms', () => {
  const ROLE = '100000000000000009';
  const error = (value: unknown) => {
    const parsed = settingsChangeSchema.safeParse({ alarmPingRole: value });
    return parsed.success ? null : parsed.error.issues.map((i) => [i.path.join('.'), i.message]);
  };

  it('takes a role id, trimmed, or null (none)', () => {
    expect(settingsChangeSchema.parse({ alarmPingRole: ` ${ROLE} ` })).toEqual({ alarmPingRole: ROLE });
    expect(settingsChangeSchema.parse({ alarmPingRole: null })).toEqual({ alarmPingRole: null });
    expect(settingsShape.alarmPingRole.parse(null)).toBeNull();
  });

  it.each([
    ['a role name', 'Staff', 'Role to ping must be a role id (17 to 20 digits)'],
    ['a mention', `<@&${ROLE}>`, 'Role to ping must be a role id (17 to 20 digits)'],
    ['too short an id', '1234', 'Role to ping must be a role id (17 to 20 digits)'],
    ['a number', 42, 'Role to ping must be a role id'],
  ])('refuses %s, naming the field', (_name, value, message) => {
    expect(error(value)).toEqual([['alarmPingRole', message]]);
  });

  it('ignores a stored value the rules refuse (the default, none, applies)', () => {
    expect(validStored({ alarmPingRole: 'Staff' })).toEqual({});
    expect(validStored({ alarmPingRole: ROLE })).toEqual({ alarmPingRole: ROLE });
  });
});
