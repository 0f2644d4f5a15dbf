import type { ReactNode } from 'react';
import { FieldError } from './field-error';
import { Input, type InputProps } from './input';
import { Label } from './label';

export interface TextFieldProps extends Omit<InputProps, 'id'> {
  id: string;
  label: ReactNode;
  /** the field's validation message; marks the input invalid and is announced */
  error?: string;
  /** a standing hint under the input (`{id}-hint`) */
  hint?: ReactNode;
  /** marks the input invalid without a message of its own (a form-level alert explains) */
  invalid?: boolean;
}

/**
 * A labelled text input with its hint and validation message, wired for assistive
 * technology: aria-describedby names the hint, the message and any extra ids given.
 */
export function TextField({ id, label, error, hint, invalid, 'aria-describedby': extra, ...input }: TextFieldProps) {
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null, extra ?? null].filter(Boolean).join(' ');
  return (
    <div className="flex flex-col gap-2">
      <Label htmlFor={id}>{label}</Label>
      <Input id={id} aria-invalid={error || invalid ? true : undefined} aria-describedby={describedBy || undefined} {...input} />
      {hint ? (
        <p id={`${id}-hint`} className="text-xs text-muted">
          {hint}
        </p>
      ) : null}
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}
