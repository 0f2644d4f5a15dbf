import crypto from 'node:crypto';
import { FINGERPRINT_FIELDS, totalFailureFingerprint, type FingerprintData } from '../../shared/fingerprint';
import { AppError } from '../../errors';
import { hashFingerprintComponents, isAbsentComponent, NO_COMPONENT_HASHES } from './fingerprint-components';
import { assertFingerprintMatches, computeFingerprintHash, verifyFingerprint } from './fingerprint-hash';
import { fingerprintDataSchema, fingerprintHashSchema } from './fingerprint.schema';

const sample: FingerprintData = {
  canvas: 'c0ffee00c0ffee00',
  webgl: 'Google Inc. (NVIDIA)~ANGLE (NVIDIA GeForce RTX 3060)~EXT_blend_minmax,EXT_color_buffer_float',
  audio: '124.04347527516074',
  screen: '1920x1080x24',
  fonts: 'Arial,Calibri,Segoe UI',
  timezone: 'Europe/Berlin',
  language: 'de-DE',
  platform: 'Win32',
  hardware: '8|8',
};

describe('fingerprint schemas', () => {
  it('accepts the nine fields', () => {
    expect(fingerprintDataSchema.parse(sample)).toEqual(sample);
  });

  it.each([
    ['a missing field', () => Object.fromEntries(Object.entries(sample).filter(([k]) => k !== 'fonts'))],
    ['an extra field', () => ({ ...sample, userAgent: 'x' })],
    ['an empty field', () => ({ ...sample, canvas: '' })],
    ['an oversized field', () => ({ ...sample, webgl: 'x'.repeat(2001) })],
    ['a non-string field', () => ({ ...sample, hardware: 8 })],
    ['not an object', () => 'canvas|webgl'],
  ])('refuses %s', (_label, build) => {
    expect(fingerprintDataSchema.safeParse(build()).success).toBe(false);
  });

  it('accepts a field of exactly 2000 characters', () => {
    expect(fingerprintDataSchema.safeParse({ ...sample, webgl: 'x'.repeat(2000) }).success).toBe(true);
  });

  it.each([
    ['0123456789abcdef0123456789abcdef', true],
    ['0123456789ABCDEF0123456789ABCDEF', false],
    ['0123456789abcdef0123456789abcde', false],
    ['0123456789abcdef0123456789abcdef0', false],
    ['0123456789abcdef0123456789abcdeg', false],
  ])('hash %s valid: %s', (hash, valid) => {
    expect(fingerprintHashSchema.safeParse(hash).success).toBe(valid);
  });
});

describe('fingerprint hash', () => {
  const expected = crypto
    .createHash('sha256')
    .update(FINGERPRINT_FIELDS.map((f) => sample[f]).join('|'))
    .digest('hex')
    .slice(0, 32);

  it('is the first 32 hex of SHA-256 over the fields joined with | in spec order', () => {
    expect(computeFingerprintHash(sample)).toBe(expected);
    expect(verifyFingerprint(sample, expected)).toBe(true);
  });

  it('does not depend on the key order of the submitted object', () => {
    const reordered = Object.fromEntries(Object.entries(sample).reverse()) as FingerprintData;
    expect(computeFingerprintHash(reordered)).toBe(expected);
  });

  it('rejects a mismatch with a 400 on fingerprintHash', () => {
    expect(verifyFingerprint({ ...sample, screen: '1280x720x24' }, expected)).toBe(false);
    expect(() => assertFingerprintMatches({ ...sample, screen: '1280x720x24' }, expected)).toThrow(AppError);
    let thrown: unknown;
    try {
      assertFingerprintMatches(sample, '0'.repeat(32));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect(thrown).toMatchObject({ status: 400, field: 'fingerprintHash' });
    expect(() => assertFingerprintMatches(sample, expected)).not.toThrow();
  });
});

describe('hashFingerprintComponents', () => {
  it('hashes each component to 32 hex, separating fields', () => {
    const hashes = hashFingerprintComponents(sample);
    for (const value of Object.values(hashes)) expect(value).toMatch(/^[0-9a-f]{32}$/);
    const same = hashFingerprintComponents({ ...sample, canvas: 'x', webgl: 'x' });
    expect(same.canvasHash).not.toBe(same.webglHash);
  });

  it('changes only the hash of the component that changed', () => {
    const a = hashFingerprintComponents(sample);
    const b = hashFingerprintComponents({ ...sample, fonts: 'Arial' });
    expect(b.fontsHash).not.toBe(a.fontsHash);
    expect({ ...b, fontsHash: null }).toEqual({ ...a, fontsHash: null });
  });

  it.each([
    ['canvas', 'canvas-unavailable', 'canvasHash'],
    ['canvas', 'canvas-error', 'canvasHash'],
    ['webgl', 'webgl-unavailable', 'webglHash'],
    ['webgl', 'webgl-no-debug', 'webglHash'],
    ['webgl', 'webgl-error', 'webglHash'],
    ['audio', 'audio-unavailable', 'audioHash'],
    ['audio', 'audio-error', 'audioHash'],
    ['fonts', 'fonts-unavailable', 'fontsHash'],
    ['fonts', 'no-fonts', 'fontsHash'],
    ['screen', 'error', 'screenHash'],
    ['hardware', 'unknown', 'hardwareHash'],
    ['screen', 'screen-unavailable', 'screenHash'],
  ] as const)('treats %s = %s as absent', (field, marker, key) => {
    const hashes = hashFingerprintComponents({ ...sample, [field]: marker });
    expect(hashes[key]).toBeNull();
  });

  it('gives all-absent for the total-failure fingerprint', () => {
    expect(hashFingerprintComponents(totalFailureFingerprint())).toEqual(NO_COMPONENT_HASHES);
  });

  it('keeps real values that merely contain a marker word', () => {
    expect(isAbsentComponent('Error Corp GPU~renderer')).toBe(false);
    expect(isAbsentComponent('Europe/Berlin')).toBe(false);
    expect(isAbsentComponent(' ERROR ')).toBe(true);
  });
});
