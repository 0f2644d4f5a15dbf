import { Toast as ToastPrimitive } from 'radix-ui';
import { cn } from '@/lib/cn';
import { CloseIcon } from './icons';
import { TOAST_DURATION, type ToastItem } from './toast-types';

export interface ToastViewportProps {
  toasts: readonly ToastItem[];
  onDismiss: (id: string) => void;
}

/** Renders ToastProvider's toasts with Radix Toast (focus, swipe, hotkey F8, screen-reader announcements). */
export default function ToastViewport({ toasts, onDismiss }: ToastViewportProps) {
  return (
    <ToastPrimitive.Provider duration={TOAST_DURATION} swipeDirection="right">
      {toasts.map((item) => (
        <ToastView key={item.id} item={item} onOpenChange={(open) => (open ? undefined : onDismiss(item.id))} />
      ))}
      {/* one toast at a time (TOAST_LIMIT): the viewport sits where the newest one asked to */}
      <ToastPrimitive.Viewport
        data-placement={toasts[0]?.placement ?? 'bottom'}
        className={cn(
          'fixed right-0 z-[100] m-0 flex w-full max-w-sm list-none flex-col gap-2 p-4 outline-none',
          toasts[0]?.placement === 'top' ? 'top-0' : 'bottom-0',
        )}
      />
    </ToastPrimitive.Provider>
  );
}

function ToastView({ item, onOpenChange }: { item: ToastItem; onOpenChange: (open: boolean) => void }) {
  const destructive = item.variant === 'destructive';
  return (
    <ToastPrimitive.Root
      open={item.open}
      onOpenChange={onOpenChange}
      duration={item.duration}
      type={destructive ? 'foreground' : 'background'}
      data-variant={item.variant ?? 'default'}
      className={cn(
        'relative flex items-start gap-3 rounded-lg border p-4 pr-10 shadow-2xl data-[state=open]:animate-[gk-slide-in_150ms_ease-out]',
        'data-[swipe=move]:translate-x-[var(--radix-toast-swipe-move-x)] data-[swipe=end]:hidden',
        destructive ? 'border-danger bg-danger text-white' : 'border-border bg-surface-raised text-fg',
      )}
    >
      <div className="flex flex-col gap-1">
        {item.title ? <ToastPrimitive.Title className="text-sm font-semibold">{item.title}</ToastPrimitive.Title> : null}
        {item.description ? (
          <ToastPrimitive.Description className="text-sm opacity-90">{item.description}</ToastPrimitive.Description>
        ) : null}
      </div>
      <ToastPrimitive.Close aria-label="Close" className="absolute top-2 right-2 rounded-md p-1 opacity-80 hover:opacity-100">
        <CloseIcon className="size-4" />
      </ToastPrimitive.Close>
    </ToastPrimitive.Root>
  );
}
