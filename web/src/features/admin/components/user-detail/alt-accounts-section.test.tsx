import { describeDeviceProfileShared } from './alt-accounts-section';

describe('describeDeviceProfileShared', () => {
  it.each([
    [{ others: 214, networks: 37, atLeast: false }, 'This device profile is shared by 214 other members on 37 networks.'],
    [{ others: 63, networks: 20, atLeast: true }, 'This device profile is shared by at least 63 other members on 20 networks.'],
    [{ others: 1, networks: 1, atLeast: false }, 'This device profile is shared by 1 other member.'],
    [{ others: 0, networks: 0, atLeast: false }, 'No other member shows this device profile.'],
  ])('%j → %s', (shared, text) => {
    expect(describeDeviceProfileShared(shared)).toBe(text);
  });
});
