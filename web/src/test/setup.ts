import '@testing-library/jest-dom';
import { configure } from '@testing-library/react';

// Lazy routes load their chunk before they render: on a busy machine that takes more than
// the default 1 s of findBy/waitFor. A real failure still fails, only later.
configure({ asyncUtilTimeout: 5000 });

// jsdom has no TextEncoder/TextDecoder; react-router needs them at import time.
const nodeUtil = jest.requireActual<{ TextEncoder: typeof TextEncoder; TextDecoder: typeof TextDecoder }>('util');
globalThis.TextEncoder ??= nodeUtil.TextEncoder;
globalThis.TextDecoder ??= nodeUtil.TextDecoder;

// jsdom lacks a few browser APIs that Radix primitives (Select, Tooltip, Toast, Dialog) touch.
class ResizeObserverStub {
  observe(): void {}
  unobserve(): void {}
  disconnect(): void {}
}
globalThis.ResizeObserver ??= ResizeObserverStub as unknown as typeof ResizeObserver;

const elementProto = Element.prototype as Element & {
  hasPointerCapture?: (id: number) => boolean;
  setPointerCapture?: (id: number) => void;
  releasePointerCapture?: (id: number) => void;
  scrollIntoView?: () => void;
};
elementProto.hasPointerCapture ??= () => false;
elementProto.setPointerCapture ??= () => undefined;
elementProto.releasePointerCapture ??= () => undefined;
elementProto.scrollIntoView ??= () => undefined;

window.matchMedia ??= (query: string) =>
  ({
    matches: false,
    media: query,
    onchange: null,
    addListener: () => undefined,
    removeListener: () => undefined,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
    dispatchEvent: () => false,
  }) as MediaQueryList;
