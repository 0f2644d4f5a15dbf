import type { HTMLAttributes } from 'react';
import { cn } from '@/lib/cn';

export type BadgeColor = 'green' | 'amber' | 'red' | 'blue' | 'gray';

const colorClasses: Record<BadgeColor, string> = {
  green: 'bg-success/15 text-success ring-success/40',
  amber: 'bg-warning/15 text-warning ring-warning/40',
  red: 'bg-danger/15 text-danger ring-danger/40',
  blue: 'bg-info/15 text-info ring-info/40',
  gray: 'bg-surface-raised text-muted ring-border',
};

export interface BadgeProps extends HTMLAttributes<HTMLSpanElement> {
  color?: BadgeColor;
}

export function Badge({ color = 'gray', className, ...props }: BadgeProps) {
  return (
    <span
      data-color={color}
      className={cn(
        'inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-semibold whitespace-nowrap ring-1 ring-inset',
        colorClasses[color],
        className,
      )}
      {...props}
    />
  );
}
