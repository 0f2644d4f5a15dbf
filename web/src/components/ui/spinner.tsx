import { cn } from '@/lib/cn';

export interface SpinnerProps {
  className?: string;
  /** Text for screen readers; pass null when a surrounding label already says it. */
  label?: string | null;
}

export function Spinner({ className, label = 'Loading...' }: SpinnerProps) {
  return (
    <span role={label ? 'status' : undefined} className={cn('inline-flex items-center', className)}>
      <svg className="size-[1em] animate-spin" viewBox="0 0 24 24" fill="none" aria-hidden="true" focusable="false">
        <circle cx="12" cy="12" r="10" stroke="currentColor" strokeOpacity="0.25" strokeWidth="4" />
        <path d="M22 12a10 10 0 0 0-10-10" stroke="currentColor" strokeWidth="4" strokeLinecap="round" />
      </svg>
      {label ? <span className="sr-only">{label}</span> : null}
    </span>
  );
}
