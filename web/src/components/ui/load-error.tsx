import type { ReactNode } from 'react';
import { Alert } from './alert';
import { Button } from './button';

/** A list or page that could not be loaded: what failed, why (optional), and a Retry button. */
export function LoadError({ title, children, onRetry }: { title: string; children?: ReactNode; onRetry: () => void }) {
  return (
    <Alert variant="danger" title={title}>
      {children ? <p>{children}</p> : null}
      <div>
        <Button size="sm" variant="secondary" onClick={onRetry}>
          Retry
        </Button>
      </div>
    </Alert>
  );
}
