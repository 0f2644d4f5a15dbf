import {
  FINGERPRINT_FIELDS,
  FINGERPRINT_HASH_PATTERN,
  FINGERPRINT_LIMITS,
  fingerprintPreimage,
  type FingerprintData,
} from '@shared/fingerprint';
import { collectFingerprint, hashFingerprint } from './fingerprint-collector';
import { AUDIO_TIMEOUT_MS, PROBED_FONTS } from './fingerprint-components';

// ---- fakes for the browser APIs jsdom does not have ----------------------------------------

const BASELINE_WIDTHS: Record<string, number> = { monospace: 100, 'sans-serif': 90, serif: 95 };
const DEBUG_INFO = { UNMASKED_VENDOR_WEBGL: 0x9245, UNMASKED_RENDERER_WEBGL: 0x9246 };
const LONG_EXTENSION_LIST = Array.from({ length: 30 }, (_, i) => `EXT_feature_number_${i}`);

interface FakeEnvironment {
  context2d: 'ok' | 'null' | 'throws';
  toDataUrl: 'ok' | 'throws';
  webgl: 'ok' | 'null' | 'no-debug' | 'throws';
  installedFonts: readonly string[];
  drawing: string;
}

const defaults: FakeEnvironment = {
  context2d: 'ok',
  toDataUrl: 'ok',
  webgl: 'ok',
  installedFonts: ['Arial', 'Georgia', 'Ubuntu'],
  drawing: 'pixels-v1',
};

function fake2dContext(env: FakeEnvironment) {
  let font = '10px sans-serif';
  return {
    get font() {
      return font;
    },
    set font(value: string) {
      font = value;
    },
    textBaseline: '',
    fillStyle: '',
    globalCompositeOperation: '',
    fillRect: jest.fn(),
    fillText: jest.fn(),
    beginPath: jest.fn(),
    arc: jest.fn(),
    closePath: jest.fn(),
    fill: jest.fn(),
    measureText: () => {
      const probed = /"([^"]+)", ([\w-]+)$/.exec(font);
      const baseline = probed ? probed[2]! : font.replace(/^72px /, '');
      const installed = probed ? env.installedFonts.includes(probed[1]!) : false;
      return { width: (BASELINE_WIDTHS[baseline] ?? 80) + (installed ? 7 : 0) };
    },
  };
}

function fakeWebgl(env: FakeEnvironment) {
  const loseContext = jest.fn();
  return {
    getExtension: (name: string) => {
      if (name === 'WEBGL_lose_context') return { loseContext };
      if (name === 'WEBGL_debug_renderer_info') return env.webgl === 'no-debug' ? null : DEBUG_INFO;
      return null;
    },
    getParameter: (parameter: number) => {
      if (env.webgl === 'throws') throw new Error('context lost');
      if (parameter === DEBUG_INFO.UNMASKED_VENDOR_WEBGL) return 'Google Inc. (Intel)';
      if (parameter === DEBUG_INFO.UNMASKED_RENDERER_WEBGL) return 'ANGLE (Intel, Mesa Intel(R) UHD Graphics 620 (KBL GT2), OpenGL 4.6)';
      return null;
    },
    getSupportedExtensions: () => LONG_EXTENSION_LIST,
  };
}

function installCanvas(env: FakeEnvironment) {
  jest.spyOn(HTMLCanvasElement.prototype, 'getContext').mockImplementation(function getContext(this: HTMLCanvasElement, type: string) {
    if (type === '2d') {
      if (env.context2d === 'throws') throw new Error('blocked');
      return env.context2d === 'null' ? null : (fake2dContext(env) as unknown as CanvasRenderingContext2D);
    }
    if (type === 'webgl' || type === 'experimental-webgl')
      return env.webgl === 'null' ? null : (fakeWebgl(env) as unknown as WebGLRenderingContext);
    return null;
  } as typeof HTMLCanvasElement.prototype.getContext);
  jest.spyOn(HTMLCanvasElement.prototype, 'toDataURL').mockImplementation(() => {
    if (env.toDataUrl === 'throws') throw new DOMException('tainted', 'SecurityError');
    return `data:image/png;base64,${env.drawing}`;
  });
}

type RenderMode = 'ok' | 'reject' | 'hang' | 'throw-on-create' | 'webkit-oncomplete';

function fakeAudioContextClass(mode: RenderMode) {
  const samples = Float32Array.from({ length: 5_000 }, (_, i) => Math.sin(i / 7) * 0.001);
  const buffer = { getChannelData: () => samples };
  const node = () => ({ connect: jest.fn(), start: jest.fn(), type: '', frequency: { value: 0 } });
  const param = () => ({ value: 0 });
  return class FakeOfflineAudioContext {
    destination = {};
    oncomplete: ((event: { renderedBuffer: typeof buffer }) => void) | null = null;
    constructor() {
      if (mode === 'throw-on-create') throw new Error('NotSupportedError');
    }
    createOscillator = node;
    createDynamicsCompressor = () => ({
      connect: jest.fn(),
      threshold: param(),
      knee: param(),
      ratio: param(),
      attack: param(),
      release: param(),
    });
    startRendering() {
      if (mode === 'reject') return Promise.reject(new Error('render failed'));
      if (mode === 'hang') return new Promise(() => undefined);
      if (mode === 'webkit-oncomplete') {
        setTimeout(() => this.oncomplete?.({ renderedBuffer: buffer }), 0);
        return undefined;
      }
      return Promise.resolve(buffer);
    }
  };
}

const scope = globalThis as Record<string, unknown>;

function installAudio(mode: RenderMode | 'absent', key: 'OfflineAudioContext' | 'webkitOfflineAudioContext' = 'OfflineAudioContext') {
  delete scope.OfflineAudioContext;
  delete scope.webkitOfflineAudioContext;
  if (mode !== 'absent') scope[key] = fakeAudioContextClass(mode);
}

function setup(overrides: Partial<FakeEnvironment> = {}, audio: RenderMode | 'absent' = 'ok') {
  installCanvas({ ...defaults, ...overrides });
  installAudio(audio);
}

afterEach(() => {
  jest.restoreAllMocks();
  jest.useRealTimers();
  delete scope.OfflineAudioContext;
  delete scope.webkitOfflineAudioContext;
});

function nodeSha256(input: string): string {
  const { createHash } = jest.requireActual<{
    createHash(algorithm: string): { update(data: string): { digest(encoding: 'hex'): string } };
  }>('crypto');
  return createHash('sha256').update(input).digest('hex');
}

// ---- the tests -------------------------------------------------------------------------------

describe('collectFingerprint', () => {
  it('collects exactly the spec fields, as strings, in order', async () => {
    setup();
    const { fingerprintData, fingerprintHash } = await collectFingerprint();
    expect(Object.keys(fingerprintData)).toEqual([...FINGERPRINT_FIELDS]);
    for (const field of FINGERPRINT_FIELDS) expect(typeof fingerprintData[field]).toBe('string');
    expect(fingerprintHash).toMatch(FINGERPRINT_HASH_PATTERN);
  });

  it('describes each component', async () => {
    setup();
    const { fingerprintData } = await collectFingerprint();
    expect(fingerprintData.canvas).toMatch(/^[0-9a-f]{32}$/);
    expect(
      fingerprintData.webgl.startsWith(
        'Google Inc. (Intel)~ANGLE (Intel, Mesa Intel(R) UHD Graphics 620 (KBL GT2), OpenGL 4.6)~EXT_feature_number_0,',
      ),
    ).toBe(true);
    expect(fingerprintData.audio).toMatch(/^\d+\.\d+/);
    expect(fingerprintData.fonts).toBe('Arial,Georgia,Ubuntu');
    expect(fingerprintData.screen).toMatch(/^\d+x\d+x\d+$/);
    expect(fingerprintData.timezone).not.toBe('');
    expect(fingerprintData.language).toContain('en');
    expect(fingerprintData.platform).toContain(navigator.userAgent.slice(0, 50));
    expect(fingerprintData.hardware).toMatch(/^cores:\S+~memory:\S+~touch:\d+$/);
    for (const value of Object.values(fingerprintData)) {
      expect(value).not.toContain('|');
      expect(value.length).toBeLessThanOrEqual(FINGERPRINT_LIMITS.fieldMaxLength);
    }
  });

  it('hashes the first 32 hex of SHA-256 over the fields joined with "|" (what the server recomputes)', async () => {
    setup();
    const { fingerprintData, fingerprintHash } = await collectFingerprint();
    const preimage = FINGERPRINT_FIELDS.map((field) => fingerprintData[field]).join('|');
    expect(fingerprintPreimage(fingerprintData)).toBe(preimage);
    expect(fingerprintHash).toBe(nodeSha256(preimage).slice(0, 32));
  });

  it('is deterministic: the same browser gives the same data and hash every time', async () => {
    setup();
    const first = await collectFingerprint();
    const second = await collectFingerprint();
    expect(second).toEqual(first);
  });

  it('changes the hash when one component changes', async () => {
    setup({ drawing: 'pixels-v1' });
    const first = await collectFingerprint();
    jest.restoreAllMocks();
    setup({ drawing: 'pixels-v2' });
    const second = await collectFingerprint();
    expect(second.fingerprintData.canvas).not.toBe(first.fingerprintData.canvas);
    expect(second.fingerprintData.webgl).toBe(first.fingerprintData.webgl);
    expect(second.fingerprintHash).not.toBe(first.fingerprintHash);
  });

  describe('truncations', () => {
    it('cuts the WebGL extension list to 100 characters', async () => {
      setup();
      const { fingerprintData } = await collectFingerprint();
      const extensions = fingerprintData.webgl.split('~')[2]!;
      expect(extensions).toBe(LONG_EXTENSION_LIST.join(',').slice(0, 100));
      expect(extensions).toHaveLength(FINGERPRINT_LIMITS.webglExtensions);
    });

    it('cuts the audio sample to 50 characters', async () => {
      setup();
      const { fingerprintData } = await collectFingerprint();
      expect(fingerprintData.audio.length).toBeLessThanOrEqual(FINGERPRINT_LIMITS.audioSample);
    });

    it('cuts the user agent to 100 characters', async () => {
      setup();
      const longAgent = `Mozilla/5.0 ${'X'.repeat(300)}`;
      jest.spyOn(navigator, 'userAgent', 'get').mockReturnValue(longAgent);
      jest.spyOn(navigator, 'platform', 'get').mockReturnValue('Linux x86_64');
      const { fingerprintData } = await collectFingerprint();
      expect(fingerprintData.platform).toBe(`Linux x86_64~${longAgent.slice(0, 100)}`);
    });

    it('probes 13 fonts', () => {
      expect(PROBED_FONTS).toHaveLength(FINGERPRINT_LIMITS.fontsProbed);
      expect(new Set(PROBED_FONTS).size).toBe(13);
    });
  });

  describe('fallback markers', () => {
    it('canvas-unavailable, webgl-unavailable and fonts-unavailable without any canvas context', async () => {
      setup({ context2d: 'null', webgl: 'null' });
      const { fingerprintData, fingerprintHash } = await collectFingerprint();
      expect(fingerprintData).toMatchObject({ canvas: 'canvas-unavailable', webgl: 'webgl-unavailable', fonts: 'fonts-unavailable' });
      expect(fingerprintHash).toMatch(FINGERPRINT_HASH_PATTERN);
    });

    it('canvas-error when reading the pixels throws', async () => {
      setup({ toDataUrl: 'throws' });
      const { fingerprintData } = await collectFingerprint();
      expect(fingerprintData.canvas).toBe('canvas-error');
      expect(fingerprintData.fonts).toBe('Arial,Georgia,Ubuntu');
    });

    it('canvas-error and fonts-unavailable when getting the 2D context throws', async () => {
      setup({ context2d: 'throws' });
      const { fingerprintData } = await collectFingerprint();
      expect(fingerprintData.canvas).toBe('canvas-error');
      expect(fingerprintData.fonts).toBe('fonts-unavailable');
    });

    it('webgl-no-debug without the debug renderer extension', async () => {
      setup({ webgl: 'no-debug' });
      expect((await collectFingerprint()).fingerprintData.webgl).toBe('webgl-no-debug');
    });

    it('webgl-error when WebGL throws', async () => {
      setup({ webgl: 'throws' });
      expect((await collectFingerprint()).fingerprintData.webgl).toBe('webgl-error');
    });

    it('audio-unavailable without OfflineAudioContext', async () => {
      setup({}, 'absent');
      expect((await collectFingerprint()).fingerprintData.audio).toBe('audio-unavailable');
    });

    it('audio-error when rendering fails', async () => {
      setup({}, 'reject');
      expect((await collectFingerprint()).fingerprintData.audio).toBe('audio-error');
    });

    it('audio-error when the context cannot be created', async () => {
      setup({}, 'throw-on-create');
      expect((await collectFingerprint()).fingerprintData.audio).toBe('audio-error');
    });

    it('audio-error when rendering never finishes', async () => {
      jest.useFakeTimers();
      setup({}, 'hang');
      const pending = collectFingerprint();
      await jest.advanceTimersByTimeAsync(AUDIO_TIMEOUT_MS + 10);
      expect((await pending).fingerprintData.audio).toBe('audio-error');
    });

    it("renders with old WebKit's prefixed context and oncomplete callback", async () => {
      setup();
      installAudio('webkit-oncomplete', 'webkitOfflineAudioContext');
      const { fingerprintData } = await collectFingerprint();
      expect(fingerprintData.audio).toMatch(/^\d+\.\d+/);
    });

    it('no-fonts when none of the probed fonts is installed', async () => {
      setup({ installedFonts: [] });
      expect((await collectFingerprint()).fingerprintData.fonts).toBe('no-fonts');
    });

    it("every field 'error' on total failure", async () => {
      setup();
      jest.spyOn(window, 'screen', 'get').mockImplementation(() => {
        throw new Error('screen blocked');
      });
      const { fingerprintData, fingerprintHash } = await collectFingerprint();
      const allError = Object.fromEntries(FINGERPRINT_FIELDS.map((field) => [field, 'error'])) as FingerprintData;
      expect(fingerprintData).toEqual(allError);
      expect(fingerprintHash).toBe(nodeSha256(Array(9).fill('error').join('|')).slice(0, 32));
      await expect(hashFingerprint(allError)).resolves.toBe(fingerprintHash);
    });
  });
});
