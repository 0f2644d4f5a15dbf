import { LoadError } from '@/components/ui/load-error';

/** The session could not be checked (server down, not a 401, which redirects): super-admin screens cannot decide what to show. */
export function SessionProblem({ onRetry }: { onRetry: () => void }) {
  return (
    <LoadError title="Could not check your session" onRetry={onRetry}>
      The server did not answer. Check your connection and try again.
    </LoadError>
  );
}
