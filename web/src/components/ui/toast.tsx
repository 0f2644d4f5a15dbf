import {
  Component,
  createContext,
  lazy,
  Suspense,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useReducer,
  useRef,
  type ReactNode,
} from 'react';
import { TOAST_LIMIT, TOAST_REMOVE_DELAY, type ToastItem, type ToastOptions, type ToastPlacement } from './toast-types';

// The Radix renderer loads with the first toast: most visitors never see one, so it stays out of their bundle.
const ToastViewport = lazy(() => import('./toast-viewport'));

export * from './toast-types';

/**
 * The corner a bottom toast takes: the viewport's rightmost 400 px (max-w-sm and its padding;
 * the whole width on a phone) and its lowest 180 px (a toast with a two-line description).
 */
export const TOAST_ZONE = { width: 400, height: 180 } as const;

/**
 * A toast must not cover the control that caused it (a 'Password updated' toast over the
 * last row's 'Update' button): when that control reaches into the bottom toast's corner the
 * toast goes to the top, otherwise it stays at the bottom. Without a known control, the bottom.
 */
export function toastPlacementFor(
  control: { right: number; bottom: number } | null,
  viewport: { width: number; height: number },
): ToastPlacement {
  if (!control || viewport.height <= 0) return 'bottom';
  const inCorner = control.right > viewport.width - TOAST_ZONE.width && control.bottom > viewport.height - TOAST_ZONE.height;
  return inCorner ? 'top' : 'bottom';
}

export interface ToastHandle {
  id: string;
  dismiss: () => void;
}

export interface ToastApi {
  toasts: ToastItem[];
  /** `toast({ variant: 'destructive', title: 'Error', description: '…' })` */
  toast: (options: ToastOptions) => ToastHandle;
  /** Dismiss one toast, or all when no id is given. */
  dismiss: (id?: string) => void;
}

type Action = { type: 'add'; toast: ToastItem } | { type: 'dismiss'; id?: string } | { type: 'remove'; id: string };

function reducer(state: ToastItem[], action: Action): ToastItem[] {
  switch (action.type) {
    case 'add':
      return [action.toast, ...state].slice(0, TOAST_LIMIT);
    case 'dismiss':
      return state.map((item) => (action.id === undefined || item.id === action.id ? { ...item, open: false } : item));
    case 'remove':
      return state.filter((item) => item.id !== action.id);
  }
}

const ToastContext = createContext<ToastApi | null>(null);

let nextToastId = 0;

/** Holds the toasts and renders them; put it once near the root (AppProviders does). */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, dispatch] = useReducer(reducer, []);
  const removalTimers = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  // the control last pressed or focused: a toast it causes (often after an awaited request) stays clear of it
  const lastControl = useRef<Element | null>(null);

  useEffect(() => {
    const remember = (event: Event) => {
      if (event.target instanceof Element) lastControl.current = event.target;
    };
    document.addEventListener('pointerdown', remember, true);
    document.addEventListener('focusin', remember, true);
    return () => {
      document.removeEventListener('pointerdown', remember, true);
      document.removeEventListener('focusin', remember, true);
    };
  }, []);

  useEffect(() => {
    const timers = removalTimers.current;
    return () => timers.forEach((timer) => clearTimeout(timer));
  }, []);

  const scheduleRemoval = useCallback((id: string) => {
    if (removalTimers.current.has(id)) return;
    removalTimers.current.set(
      id,
      setTimeout(() => {
        removalTimers.current.delete(id);
        dispatch({ type: 'remove', id });
      }, TOAST_REMOVE_DELAY),
    );
  }, []);

  const dismiss = useCallback(
    (id?: string) => {
      dispatch({ type: 'dismiss', id });
      if (id !== undefined) scheduleRemoval(id);
    },
    [scheduleRemoval],
  );

  // A toast pushed out by TOAST_LIMIT or dismissed all at once still gets its removal timer.
  useEffect(() => {
    toasts.filter((item) => !item.open).forEach((item) => scheduleRemoval(item.id));
  }, [toasts, scheduleRemoval]);

  const toast = useCallback(
    (options: ToastOptions): ToastHandle => {
      const id = `toast-${++nextToastId}`;
      const control = lastControl.current?.isConnected ? lastControl.current.getBoundingClientRect() : null;
      const placement = options.placement ?? toastPlacementFor(control, { width: window.innerWidth, height: window.innerHeight });
      dispatch({ type: 'add', toast: { ...options, id, open: true, placement } });
      return { id, dismiss: () => dismiss(id) };
    },
    [dismiss],
  );

  const api = useMemo<ToastApi>(() => ({ toasts, toast, dismiss }), [toasts, toast, dismiss]);

  return (
    <ToastContext.Provider value={api}>
      {children}
      {toasts.length > 0 ? (
        <ToastLoadBoundary fallback={<PlainToasts toasts={toasts} onDismiss={dismiss} />}>
          <Suspense fallback={null}>
            <ToastViewport toasts={toasts} onDismiss={dismiss} />
          </Suspense>
        </ToastLoadBoundary>
      ) : null}
    </ToastContext.Provider>
  );
}

/** If the renderer's chunk cannot load (the network is down — just when an error toast is due), toasts still show, plainly. */
class ToastLoadBoundary extends Component<{ fallback: ReactNode; children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  override render() {
    return this.state.failed ? this.props.fallback : this.props.children;
  }
}

function PlainToasts({ toasts, onDismiss }: { toasts: readonly ToastItem[]; onDismiss: (id: string) => void }) {
  return (
    <div
      role="status"
      aria-live="polite"
      data-placement={toasts[0]?.placement ?? 'bottom'}
      className={`fixed right-0 ${toasts[0]?.placement === 'top' ? 'top-0' : 'bottom-0'} z-[100] flex w-full max-w-sm flex-col gap-2 p-4`}
    >
      {toasts
        .filter((item) => item.open)
        .map((item) => (
          <div
            key={item.id}
            className={item.variant === 'destructive' ? 'rounded-lg bg-danger p-4 text-white' : 'rounded-lg bg-surface-raised p-4 text-fg'}
          >
            {item.title ? <p className="text-sm font-semibold">{item.title}</p> : null}
            {item.description ? <p className="text-sm">{item.description}</p> : null}
            <button type="button" className="mt-2 text-xs underline" onClick={() => onDismiss(item.id)}>
              Dismiss
            </button>
          </div>
        ))}
    </div>
  );
}

/** The toast API; needs ToastProvider above. */
export function useToast(): ToastApi {
  const api = useContext(ToastContext);
  if (!api) throw new Error('useToast must be used inside <ToastProvider>');
  return api;
}
