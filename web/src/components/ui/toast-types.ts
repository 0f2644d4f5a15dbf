import type { ReactNode } from 'react';

/** At most one toast is visible… */
export const TOAST_LIMIT = 1;
/** …and a dismissed toast is removed from the list after 1,000,000 ms. */
export const TOAST_REMOVE_DELAY = 1_000_000;
/** How long a toast stays before it closes itself. */
export const TOAST_DURATION = 5_000;

export type ToastVariant = 'default' | 'destructive';

/** Where the toast shows: bottom right (full width on phones), or at the top when that would cover what the user just used. */
export type ToastPlacement = 'top' | 'bottom';

export interface ToastOptions {
  title?: ReactNode;
  description?: ReactNode;
  variant?: ToastVariant;
  /** Milliseconds before it closes itself (default TOAST_DURATION). */
  duration?: number;
  /** Default: away from the control last pressed or focused (toastPlacementFor). */
  placement?: ToastPlacement;
}

export interface ToastItem extends ToastOptions {
  id: string;
  open: boolean;
  placement: ToastPlacement;
}
