import { extractTimeZone, isTimezoneMismatch, utcOffsetMinutes } from './timezone-mismatch';

const winter = new Date('2026-01-15T12:00:00Z');
const summer = new Date('2026-07-15T12:00:00Z');

describe('isTimezoneMismatch', () => {
  it.each([
    ['Europe/Berlin', 'DE', false],
    ['Europe/Berlin', 'NL', false], // Windows maps W. Europe to Berlin: same offset, no flag
    ['Europe/Amsterdam', 'de', false],
    ['America/Chicago', 'US', false],
    ['Pacific/Honolulu', 'US', false],
    ['Asia/Calcutta', 'IN', false],
    ['Asia/Tokyo', 'US', true],
    ['America/New_York', 'NL', true],
    ['Europe/London', 'DE', true],
    ['Etc/UTC', 'US', false],
    ['UTC', 'JP', false],
    ['Not/AZone', 'US', false],
    ['Asia/Tokyo', 'ZZ', false],
    ['Asia/Tokyo', null, false],
    [null, 'US', false],
    ['Europe/Berlin (UTC+01:00)', 'US', true],
  ])('%s from %s → %s (winter)', (zone, country, expected) => {
    expect(isTimezoneMismatch(zone, country, winter)).toBe(expected);
  });

  it('follows daylight saving time', () => {
    // Lisbon = London all year; Lisbon vs Dublin too, but Reykjavik only matches them in winter
    expect(isTimezoneMismatch('Atlantic/Reykjavik', 'GB', winter)).toBe(false);
    expect(isTimezoneMismatch('Atlantic/Reykjavik', 'GB', summer)).toBe(true);
  });
});

describe('time zone helpers', () => {
  it('reads offsets', () => {
    expect(utcOffsetMinutes('Asia/Kolkata', winter)).toBe(330);
    expect(utcOffsetMinutes('America/New_York', winter)).toBe(-300);
    expect(utcOffsetMinutes('UTC', winter)).toBe(0);
    expect(utcOffsetMinutes('Nope/Nope', winter)).toBeNull();
  });
  it('extracts a zone from a descriptor', () => {
    expect(extractTimeZone('America/Argentina/Buenos_Aires')).toBe('America/Argentina/Buenos_Aires');
    expect(extractTimeZone('-60|Europe/Paris')).toBe('Europe/Paris');
    expect(extractTimeZone('error')).toBeNull();
  });
});
