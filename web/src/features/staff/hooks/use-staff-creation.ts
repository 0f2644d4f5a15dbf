import { useState } from 'react';
import { useToast } from '@/components/ui/toast';
import { apiErrorMessage } from '@/lib/api';
import { useSignInRedirect } from '@/features/admin-shell';

/**
 * Sends a new staff account (username trimmed) and tells the staff member how it went: the
 * "Staff account created" toast, or the server's reason (and the sign-in page when the session
 * has ended). `create` is the call the form may use; `onCreated` runs before the form stops
 * being busy, so the form never shows as ready again in between.
 */
export function useStaffCreation(create: (input: { username: string; password: string }) => Promise<unknown>, onCreated: () => void) {
  const handleUnauthorized = useSignInRedirect();
  const { toast } = useToast();
  const [submitting, setSubmitting] = useState(false);

  const createAccount = async (username: string, password: string): Promise<void> => {
    setSubmitting(true);
    try {
      const name = username.trim();
      await create({ username: name, password });
      toast({ title: 'Staff account created', description: `${name} can now sign in to the dashboard.` });
      onCreated();
    } catch (error) {
      toast({ variant: 'destructive', title: apiErrorMessage(error, 'Failed to create staff account') });
      handleUnauthorized(error);
    } finally {
      setSubmitting(false);
    }
  };

  return { submitting, createAccount };
}
