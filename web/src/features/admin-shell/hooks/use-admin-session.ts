import { isApiStatus } from '@/lib/api';
import { useStaffSession } from '../api/session';
import { useSignInRedirect } from './use-sign-in-redirect';

/**
 * The staff guard of every admin screen: the session (who, super admin or not), and a redirect to
 * /admin/login when the server answers 401. Pages render their frame at once and fill in when it loads.
 */
export function useAdminSession() {
  const { data: session, error, isLoading, mutate } = useStaffSession();
  useSignInRedirect(error);
  return {
    session,
    isLoading,
    isSuperAdmin: session?.isSuperAdmin === true,
    /** the session could not be read for another reason than a 401 (which redirects) */
    failed: !session && error !== undefined && !isApiStatus(error, 401),
    retry: () => void mutate(),
  };
}
