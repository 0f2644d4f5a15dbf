import type { LabelHTMLAttributes } from 'react';
import { cn } from '@/lib/cn';

/** Pass htmlFor, or wrap the control. */
export function Label({ className, ...props }: LabelHTMLAttributes<HTMLLabelElement>) {
  return <label className={cn('text-sm font-medium text-heading', className)} {...props} />;
}
