import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';

/** The session could not be checked (server down, not a 401, which redirects): super-admin screens cannot decide what to show. */
export function SessionProblem({ onRetry }: { onRetry: () => void }) {
  return (
    <Alert variant="danger" title="Could not check your session">
      <p>The server did not answer. Check your connection and try again.</p>
      <div>
        <Button size="sm" variant="secondary" onClick={onRetry}>
          Retry
        </Button>
      </div>
    </Alert>
  );
}
