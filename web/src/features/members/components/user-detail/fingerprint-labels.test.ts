import { describeDetectionMethod } from './fingerprint-labels';

describe('describeDetectionMethod', () => {
  it.each([
    ['browser', 'Same browser profile (browser token)'],
    ['both', 'IP address and device fingerprint'],
    ['fingerprint', 'Device fingerprint'],
    ['network', 'Same network and similar device'],
    ['ip', 'IP address'],
    ['manual', 'Manual (linked by staff)'],
    ['', 'Unknown'],
  ])('%s → %s', (method, words) => {
    expect(describeDetectionMethod(method)).toBe(words);
  });
});
