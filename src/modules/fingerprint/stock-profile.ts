import type { FingerprintData } from '../../shared/fingerprint';
import { isAbsentComponent } from './fingerprint-components';

/**
 * What a device profile says about itself, from the values the consent page already
 * collects (judged when the consent is given; only the answer travels with the attempt,
 * never stored): whether it looks like a stock phone, a configuration thousands of devices
 * show. The new-server prior (RARITY.membersToJudgeRarity in src/modules/alts/alt-scoring.ts)
 * uses it: until a server is large enough for its own counts to tell a device's own values
 * from its model's, a stock phone's values are never rare.
 *
 * A profile looks stock when all three hold:
 *  - the platform read-out (navigator.platform and the user agent) names an iPhone, iPad or
 *    Android device: phone browsers ship with their system and render the same on every
 *    device of a model;
 *  - the WebGL renderer, when read, is a phone GPU family every device of a model reports
 *    (Apple GPU, Adreno, Mali, PowerVR, Xclipse, Immortalis);
 *  - the font list holds none of the probed fonts a phone's system does not ship (Calibri,
 *    Cambria, Consolas, Segoe UI, Ubuntu, DejaVu Sans come with desktop systems or their
 *    office software): a phone showing one was customised or is no phone.
 */
const MOBILE_PLATFORM = /iphone|ipad|ipod|android/i;
const MOBILE_GPU = /apple gpu|adreno|mali|powervr|xclipse|immortalis/i;
const DESKTOP_ONLY_FONTS = ['Calibri', 'Cambria', 'Consolas', 'Segoe UI', 'Ubuntu', 'DejaVu Sans'] as const;

export function looksStock(data: FingerprintData): boolean {
  if (isAbsentComponent(data.platform) || !MOBILE_PLATFORM.test(data.platform)) return false;
  if (!isAbsentComponent(data.webgl) && !MOBILE_GPU.test(data.webgl)) return false;
  const fonts = isAbsentComponent(data.fonts) ? [] : data.fonts.split(',').map((f) => f.trim());
  return !fonts.some((f) => (DESKTOP_ONLY_FONTS as readonly string[]).includes(f));
}
