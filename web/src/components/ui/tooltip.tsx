import { useCallback, useState, type ComponentProps, type ReactNode } from 'react';
import { Tooltip as TooltipPrimitive } from 'radix-ui';
import { cn } from '@/lib/cn';

export const TooltipTrigger = TooltipPrimitive.Trigger;

/**
 * Radix Tooltip root, wrapped in its own provider so no app-wide provider is needed.
 *
 * Always controlled: an uncontrolled Radix tooltip announces its opening ('tooltip.open', which
 * closes every open tooltip) from an effect, and under Preact (the production build, see
 * vite.config.ts) that effect can run after the new content subscribed, so it closed itself at
 * once. Controlled, the announcement happens in the event handler, before the content exists.
 */
export function Tooltip({
  delayDuration = 200,
  open: openProp,
  defaultOpen = false,
  onOpenChange,
  ...props
}: ComponentProps<typeof TooltipPrimitive.Root>) {
  const [uncontrolledOpen, setUncontrolledOpen] = useState(defaultOpen);
  const handleOpenChange = useCallback(
    (next: boolean) => {
      setUncontrolledOpen(next);
      onOpenChange?.(next);
    },
    [onOpenChange],
  );
  return (
    <TooltipPrimitive.Provider delayDuration={delayDuration}>
      <TooltipPrimitive.Root open={openProp ?? uncontrolledOpen} onOpenChange={handleOpenChange} {...props} />
    </TooltipPrimitive.Provider>
  );
}

export function TooltipContent({ className, sideOffset = 6, children, ...props }: ComponentProps<typeof TooltipPrimitive.Content>) {
  return (
    <TooltipPrimitive.Portal>
      <TooltipPrimitive.Content
        sideOffset={sideOffset}
        className={cn('z-50 max-w-xs rounded-md bg-surface-sunken px-3 py-2 text-xs text-fg shadow-lg ring-1 ring-border', className)}
        {...props}
      >
        {children}
        <TooltipPrimitive.Arrow className="fill-surface-sunken" />
      </TooltipPrimitive.Content>
    </TooltipPrimitive.Portal>
  );
}

export interface SimpleTooltipProps {
  /** What the tooltip says. */
  content: ReactNode;
  /** One focusable element (button, link) — it becomes the trigger via asChild. */
  children: ReactNode;
  side?: 'top' | 'right' | 'bottom' | 'left';
}

/** `<SimpleTooltip content="…"><button>…</button></SimpleTooltip>` */
export function SimpleTooltip({ content, children, side = 'top' }: SimpleTooltipProps) {
  return (
    <Tooltip>
      <TooltipTrigger asChild>{children}</TooltipTrigger>
      <TooltipContent side={side}>{content}</TooltipContent>
    </Tooltip>
  );
}
