import { useId, useState, type FormEvent } from 'react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { useToast } from '@/components/ui/toast';
import { apiErrorMessage } from '@/lib/api';
import type { UserDetail } from '../../api/members';
import { memberRecordCount, SHARED_NETWORK_LABEL_MAX, useSharedNetworkActions } from '../../api/shared-networks';
import { useSignInRedirect } from '@/features/admin-shell';

/** Why a record has no network to mark, or undefined when it may have one (the server still answers 409 if not). */
export function noNetworkReason(user: Pick<UserDetail, 'status' | 'source' | 'evidence'>): string | undefined {
  if (user.status === 'limited_access')
    return 'Limited Access records keep no network (only the Discord ID and username), so there is no network to mark.';
  if (user.source === 'manual' && user.evidence.length === 0)
    return 'This record was created manually and has no network on record, so there is no network to mark.';
  return undefined;
}

/**
 * The Admin Management 'Shared Network' section: mark the network this member verified
 * from as shared (a household, school or carrier NAT), with an optional label, or unmark it.
 */
export function SharedNetworkControl({ user }: { user: UserDetail }) {
  const { markSharedNetwork, unmarkSharedNetwork } = useSharedNetworkActions();
  const handleUnauthorized = useSignInRedirect();
  const { toast } = useToast();
  const [label, setLabel] = useState('');
  const [pending, setPending] = useState(false);
  const labelId = useId();
  const reasonId = useId();
  const marked = user.sharedNetwork?.marked === true;
  const reason = marked ? undefined : noNetworkReason(user);

  const mark = async (event: FormEvent) => {
    event.preventDefault();
    if (reason) return;
    setPending(true);
    try {
      const change = await markSharedNetwork(user.discordId, label);
      toast({
        title: 'Network marked as shared',
        description: `IP and network matches from this network no longer count as alt evidence (${memberRecordCount(change.members)} on it).`,
      });
      setLabel('');
    } catch (error) {
      toast({ variant: 'destructive', title: 'Error', description: apiErrorMessage(error, 'Failed to mark the network as shared.') });
      handleUnauthorized(error);
    } finally {
      setPending(false);
    }
  };

  const unmark = async () => {
    setPending(true);
    try {
      await unmarkSharedNetwork(user.discordId);
      toast({ title: 'Shared network unmarked', description: 'IP and network matches from this network count as alt evidence again.' });
    } catch (error) {
      toast({ variant: 'destructive', title: 'Error', description: apiErrorMessage(error, 'Failed to unmark the shared network.') });
      handleUnauthorized(error);
    } finally {
      setPending(false);
    }
  };

  return (
    <div className="flex flex-col gap-3">
      <p className="text-muted">
        A network many people share (a household, a school, a carrier NAT) can be marked as shared: from the next verification on, IP-only
        and same-network matches there no longer count as alt evidence. Links found earlier stay.
      </p>
      {marked ? (
        <div className="flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
          <p className="flex flex-wrap items-center gap-2">
            <Badge color="blue">Shared network</Badge>
            <span>{user.sharedNetwork?.label ? user.sharedNetwork.label : <span className="text-muted">No label</span>}</span>
          </p>
          <Button variant="secondary" loading={pending} onClick={() => void unmark()}>
            {pending ? 'Unmarking...' : 'Unmark Shared Network'}
          </Button>
        </div>
      ) : (
        <form noValidate className="flex flex-col gap-2 sm:flex-row sm:items-end" onSubmit={(event) => void mark(event)}>
          <div className="flex flex-1 flex-col gap-2">
            <Label htmlFor={labelId}>Label (optional)</Label>
            <Input
              id={labelId}
              value={label}
              maxLength={SHARED_NETWORK_LABEL_MAX}
              placeholder="e.g. family, school, campus Wi-Fi"
              disabled={pending || reason !== undefined}
              aria-describedby={reason ? reasonId : undefined}
              onChange={(event) => setLabel(event.target.value)}
            />
          </div>
          <Button type="submit" loading={pending} disabled={reason !== undefined} aria-describedby={reason ? reasonId : undefined}>
            {pending ? 'Marking...' : 'Mark as Shared Network'}
          </Button>
        </form>
      )}
      {reason ? (
        <p id={reasonId} className="text-xs text-muted">
          {reason}
        </p>
      ) : null}
    </div>
  );
}
