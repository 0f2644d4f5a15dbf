import { useCallback, useEffect } from 'react';
import { useNavigate } from 'react-router-dom';
import { isApiStatus } from '@/lib/api';

export const STAFF_LOGIN_PATH = '/admin/login';

/** A 401 (no or expired staff session) sends staff to the login page. Returns a handler for failed mutations. */
export function useSignInRedirect(...queryErrors: unknown[]): (error: unknown) => boolean {
  const navigate = useNavigate();
  const unauthorized = queryErrors.some((error) => isApiStatus(error, 401));

  useEffect(() => {
    if (unauthorized) void navigate(STAFF_LOGIN_PATH, { replace: true });
  }, [unauthorized, navigate]);

  return useCallback(
    (error: unknown) => {
      if (!isApiStatus(error, 401)) return false;
      void navigate(STAFF_LOGIN_PATH, { replace: true });
      return true;
    },
    [navigate],
  );
}
