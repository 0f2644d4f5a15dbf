import type { HTMLAttributes, ReactNode } from 'react';
import { cn } from '@/lib/cn';
import { CheckCircleIcon, InfoIcon, WarningIcon } from './icons';

export type AlertVariant = 'info' | 'warning' | 'danger' | 'success';

const variantClasses: Record<AlertVariant, string> = {
  info: 'border-info/50 bg-info/10',
  warning: 'border-warning/60 bg-warning/10',
  danger: 'border-danger/60 bg-danger/10',
  success: 'border-success/60 bg-success/10',
};

const iconClasses: Record<AlertVariant, string> = {
  info: 'text-info',
  warning: 'text-warning',
  danger: 'text-danger',
  success: 'text-success',
};

/** The icon says the box's kind: a check for success, an "i" for information, the triangle only for warnings and errors. */
const variantIcons: Record<AlertVariant, { Icon: typeof WarningIcon; name: string }> = {
  info: { Icon: InfoIcon, name: 'info' },
  warning: { Icon: WarningIcon, name: 'warning' },
  danger: { Icon: WarningIcon, name: 'warning' },
  success: { Icon: CheckCircleIcon, name: 'check' },
};

export interface AlertProps extends Omit<HTMLAttributes<HTMLDivElement>, 'title'> {
  variant?: AlertVariant;
  title?: ReactNode;
}

/** An inline notice box. Uses role="alert" only for danger; others are plain notes. */
export function Alert({ variant = 'info', title, className, children, ...props }: AlertProps) {
  const { Icon, name } = variantIcons[variant];
  return (
    <div
      role={variant === 'danger' ? 'alert' : 'note'}
      className={cn('flex gap-3 rounded-lg border p-4 text-sm', variantClasses[variant], className)}
      {...props}
    >
      <Icon data-icon={name} className={cn('mt-0.5 size-5 shrink-0', iconClasses[variant])} />
      <div className="flex flex-col gap-1">
        {title ? <p className="font-semibold text-heading">{title}</p> : null}
        {children}
      </div>
    </div>
  );
}
