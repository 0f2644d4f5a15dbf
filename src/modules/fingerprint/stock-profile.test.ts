import type { FingerprintData } from '../../shared/fingerprint';
import { looksStock } from './stock-profile';

const IPHONE: FingerprintData = {
  canvas: 'c0ffee',
  webgl: 'Apple Inc.~Apple GPU~ANGLE_instanced_arrays,EXT_blend_minmax',
  audio: '124.04347527516074',
  screen: '390x844x24',
  fonts: 'Arial,Courier New,Georgia,Helvetica Neue,Impact',
  timezone: 'Europe/Berlin',
  language: 'de-DE',
  platform:
    'iPhone~Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148',
  hardware: '4|unknown',
};
const ANDROID: FingerprintData = {
  ...IPHONE,
  webgl: 'Qualcomm~Adreno (TM) 650~ANGLE_instanced_arrays',
  fonts: 'Roboto',
  platform:
    'Linux armv8l~Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36',
};
const WINDOWS: FingerprintData = {
  ...IPHONE,
  webgl: 'Google Inc. (NVIDIA)~ANGLE (NVIDIA, NVIDIA GeForce RTX 3060 Direct3D11 vs_5_0 ps_5_0, D3D11)~ANGLE_instanced_arrays',
  fonts: 'Arial,Calibri,Cambria,Comic Sans MS,Consolas,Courier New,Georgia,Impact,Segoe UI',
  platform: 'Win32~Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
};

describe('looksStock', () => {
  it('calls a phone with its system fonts and its GPU family stock', () => {
    expect(looksStock(IPHONE)).toBe(true);
    expect(looksStock(ANDROID)).toBe(true);
    expect(looksStock({ ...IPHONE, webgl: 'webgl-no-debug' })).toBe(true);
  });

  it('calls a desktop profile not stock: its fonts and GPU vary from machine to machine', () => {
    expect(looksStock(WINDOWS)).toBe(false);
  });

  it('calls a phone showing a desktop font or another GPU not stock (customised, or no phone)', () => {
    expect(looksStock({ ...IPHONE, fonts: `${IPHONE.fonts},Consolas` })).toBe(false);
    expect(looksStock({ ...ANDROID, webgl: WINDOWS.webgl })).toBe(false);
  });

  it('calls a profile whose platform could not be read not stock (nothing to judge it by)', () => {
    expect(looksStock({ ...IPHONE, platform: 'error' })).toBe(false);
  });
});
