/**
 * One collector per fingerprint field. The four rich ones (canvas, webgl, audio, fonts)
 * catch their own failures and answer a fallback marker; the simple descriptors throw,
 * which makes the whole collection fail (every field 'error').
 */
import { FINGERPRINT_LIMITS, type FingerprintFallbackMarker } from '@shared/fingerprint';
import { sha256Hex } from '@/lib/sha256';

/** The 13 probed fonts (docs/behaviour.md#limits-and-constants): common across Windows, macOS, Linux, Android and iOS, so their presence discriminates. */
export const PROBED_FONTS = [
  'Arial',
  'Calibri',
  'Cambria',
  'Comic Sans MS',
  'Consolas',
  'Courier New',
  'DejaVu Sans',
  'Georgia',
  'Helvetica Neue',
  'Impact',
  'Roboto',
  'Segoe UI',
  'Ubuntu',
] as const;

const FONT_BASELINES = ['monospace', 'sans-serif', 'serif'] as const;
const FONT_TEST_TEXT = 'mmmmmmmmmmlli WwQq@#1';

/** How long the audio render may take before the field falls back to 'audio-error'. */
export const AUDIO_TIMEOUT_MS = 1_000;

/** Values must not contain the preimage separator and stay within the server's length bound. */
export function cleanValue(value: string): string {
  return value.replace(/\|/g, '/').slice(0, FINGERPRINT_LIMITS.fieldMaxLength);
}

/** 128 bits of a SHA-256 are plenty to compare one component between devices. */
async function shortHash(input: string): Promise<string> {
  return (await sha256Hex(input)).slice(0, 32);
}

export async function collectCanvas(): Promise<string> {
  let context: CanvasRenderingContext2D | null;
  const canvas = document.createElement('canvas');
  canvas.width = 280;
  canvas.height = 60;
  try {
    context = canvas.getContext('2d');
  } catch {
    return marker('canvas-error');
  }
  if (!context) return marker('canvas-unavailable');
  try {
    // Text with an emoji, overlapping translucent shapes and a blend mode: antialiasing, font
    // rasterisation and compositing differ between GPUs, drivers, OSes and browsers.
    context.textBaseline = 'alphabetic';
    context.fillStyle = '#f60';
    context.fillRect(125, 1, 62, 20);
    context.fillStyle = '#069';
    context.font = '11pt "Times New Roman", serif';
    context.fillText('Gatekeeper verify, 1.0 \u{1F6E1}\u{FE0F}', 2, 15);
    context.fillStyle = 'rgba(102, 204, 0, 0.7)';
    context.font = '18pt Arial, sans-serif';
    context.fillText('Cwm fjordbank glyphs vext quiz', 4, 45);
    context.globalCompositeOperation = 'multiply';
    for (const [color, x] of [
      ['#f2f', 40],
      ['#2ff', 80],
      ['#ff2', 60],
    ] as const) {
      context.fillStyle = color;
      context.beginPath();
      context.arc(x, 40, 20, 0, Math.PI * 2, true);
      context.closePath();
      context.fill();
    }
    const dataUrl = canvas.toDataURL('image/png');
    return await shortHash(dataUrl);
  } catch {
    return marker('canvas-error');
  }
}

interface DebugRendererInfo {
  UNMASKED_VENDOR_WEBGL: number;
  UNMASKED_RENDERER_WEBGL: number;
}

export function collectWebgl(): string {
  let gl: WebGLRenderingContext | null = null;
  try {
    const canvas = document.createElement('canvas');
    gl = (canvas.getContext('webgl') ?? canvas.getContext('experimental-webgl')) as WebGLRenderingContext | null;
    if (!gl) return marker('webgl-unavailable');
    const debugInfo = gl.getExtension('WEBGL_debug_renderer_info') as DebugRendererInfo | null;
    if (!debugInfo) return marker('webgl-no-debug');
    const vendor = String(gl.getParameter(debugInfo.UNMASKED_VENDOR_WEBGL) ?? '');
    const renderer = String(gl.getParameter(debugInfo.UNMASKED_RENDERER_WEBGL) ?? '');
    const extensions = (gl.getSupportedExtensions() ?? []).join(',').slice(0, FINGERPRINT_LIMITS.webglExtensions);
    return cleanValue(`${vendor}~${renderer}~${extensions}`);
  } catch {
    return marker('webgl-error');
  } finally {
    // Give the GPU context back at once; browsers cap how many a page may hold.
    try {
      (gl?.getExtension('WEBGL_lose_context') as { loseContext(): void } | null | undefined)?.loseContext();
    } catch {
      // Nothing to release.
    }
  }
}

type OfflineAudioContextConstructor = new (channels: number, length: number, sampleRate: number) => OfflineAudioContext;

export async function collectAudio(): Promise<string> {
  const scope = globalThis as typeof globalThis & { webkitOfflineAudioContext?: OfflineAudioContextConstructor };
  const AudioContextClass: OfflineAudioContextConstructor | undefined = scope.OfflineAudioContext ?? scope.webkitOfflineAudioContext;
  if (typeof AudioContextClass !== 'function') return marker('audio-unavailable');
  try {
    // An offline render has no clock and no output device: the same browser on the same machine
    // renders the same samples every time, while DSP implementations differ between them.
    const context = new AudioContextClass(1, 5_000, 44_100);
    const oscillator = context.createOscillator();
    oscillator.type = 'triangle';
    oscillator.frequency.value = 10_000;
    const compressor = context.createDynamicsCompressor();
    compressor.threshold.value = -50;
    compressor.knee.value = 40;
    compressor.ratio.value = 12;
    compressor.attack.value = 0;
    compressor.release.value = 0.25;
    oscillator.connect(compressor);
    compressor.connect(context.destination);
    oscillator.start(0);
    const buffer = await withTimeout(renderAudio(context), AUDIO_TIMEOUT_MS);
    const samples = buffer.getChannelData(0).subarray(4_500, 5_000);
    let sum = 0;
    for (const sample of samples) sum += Math.abs(sample);
    return cleanValue(sum.toString().slice(0, FINGERPRINT_LIMITS.audioSample));
  } catch {
    return marker('audio-error');
  }
}

/** Old WebKit's startRendering() returns nothing and reports through oncomplete. */
function renderAudio(context: OfflineAudioContext): Promise<AudioBuffer> {
  return new Promise<AudioBuffer>((resolve, reject) => {
    context.oncomplete = (event) => resolve(event.renderedBuffer);
    const rendering = context.startRendering() as Promise<AudioBuffer> | undefined;
    if (rendering && typeof rendering.then === 'function') rendering.then(resolve, reject);
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timed out')), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** Which of the 13 fonts are installed: text drawn in "Font, baseline" measures differently from the baseline alone. */
export function collectFonts(): string {
  let context: CanvasRenderingContext2D | null;
  try {
    context = document.createElement('canvas').getContext('2d');
  } catch {
    return marker('fonts-unavailable');
  }
  if (!context) return marker('fonts-unavailable');
  try {
    const ctx = context;
    const widthIn = (family: string) => {
      ctx.font = `72px ${family}`;
      return ctx.measureText(FONT_TEST_TEXT).width;
    };
    const baselineWidths = FONT_BASELINES.map(widthIn);
    const installed = PROBED_FONTS.filter((font) =>
      FONT_BASELINES.some((baseline, i) => widthIn(`"${font}", ${baseline}`) !== baselineWidths[i]),
    );
    return installed.length > 0 ? cleanValue(installed.join(',')) : marker('no-fonts');
  } catch {
    return marker('fonts-unavailable');
  }
}

export function describeScreen(): string {
  const { width, height, colorDepth } = window.screen;
  return `${width}x${height}x${colorDepth}`;
}

export function describeTimezone(): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return cleanValue(zone || `offset:${new Date().getTimezoneOffset()}`);
}

export function describeLanguage(): string {
  const languages = navigator.languages?.length ? navigator.languages.join(',') : navigator.language;
  return cleanValue((languages || 'unknown').slice(0, 100));
}

/** The platform and the user agent (cut to 100 characters). */
export function describePlatform(): string {
  return cleanValue(`${navigator.platform || 'unknown'}~${navigator.userAgent.slice(0, FINGERPRINT_LIMITS.userAgent)}`);
}

export function describeHardware(): string {
  const nav = navigator as Navigator & { deviceMemory?: number };
  return `cores:${nav.hardwareConcurrency ?? 'na'}~memory:${nav.deviceMemory ?? 'na'}~touch:${nav.maxTouchPoints ?? 0}`;
}

function marker(value: FingerprintFallbackMarker): FingerprintFallbackMarker {
  return value;
}
