import { useId, useState } from 'react';
import { Link } from 'react-router-dom';
import { Accordion, AccordionContent, AccordionItem, AccordionTrigger } from '@/components/ui/accordion';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { ConfirmDialog } from '@/components/ui/dialog';
import { useToast } from '@/components/ui/toast';
import { apiErrorMessage } from '@/lib/api';
import { memberRecordCount, useSharedNetworkActions, useSharedNetworks, type SharedNetwork } from '../api/shared-networks';
import { formatDate, useSignInRedirect } from '@/features/admin-shell';
import { LoadError } from '@/components/ui/load-error';

/** How a network is named on screen: its label, or its short hash. */
export function sharedNetworkName(network: Pick<SharedNetwork, 'label' | 'networkHash'>): string {
  return network.label ?? `Network ${network.networkHash}`;
}

export function unmarkConfirmText(network: Pick<SharedNetwork, 'label' | 'networkHash'>): string {
  return `IP and network matches from ${sharedNetworkName(network)} will count as alt evidence again from the next verification. You can mark it again from the detail page of a member on it.`;
}

/**
 * The dashboard's 'Shared Networks' panel: the networks staff marked as shared, each
 * with an unmark action. Collapsed by default so the member grid stays first.
 */
export function SharedNetworksPanel() {
  const { data: networks, error, mutate } = useSharedNetworks();
  const handleUnauthorized = useSignInRedirect(error);
  const { unmarkSharedNetwork } = useSharedNetworkActions();
  const { toast } = useToast();
  const [pendingUnmark, setPendingUnmark] = useState<SharedNetwork | null>(null);
  const [unmarking, setUnmarking] = useState(false);

  const confirmUnmark = async () => {
    const member = pendingUnmark?.member;
    if (!pendingUnmark || !member) return;
    setUnmarking(true);
    try {
      await unmarkSharedNetwork(member.discordId);
      toast({
        title: 'Shared network unmarked',
        description: `IP and network matches from ${sharedNetworkName(pendingUnmark)} count as alt evidence again.`,
      });
    } catch (unmarkError) {
      toast({ variant: 'destructive', title: 'Error', description: apiErrorMessage(unmarkError, 'Failed to unmark the shared network.') });
      handleUnauthorized(unmarkError);
      void mutate(); // it may have been unmarked elsewhere meanwhile
      throw unmarkError; // keeps the dialog open for another try
    } finally {
      setUnmarking(false);
    }
  };

  return (
    <Card className="mb-6 px-4 sm:px-6">
      <Accordion type="single" collapsible>
        <AccordionItem value="shared-networks">
          <AccordionTrigger>Shared Networks{networks ? ` (${networks.length})` : ''}</AccordionTrigger>
          <AccordionContent>
            <p className="mb-3 text-muted">
              IP-only and same-network matches from these networks (households, schools, carrier NAT) do not count as alt evidence. Mark a
              network from the detail page of a member on it.
            </p>
            {networks === undefined && error ? (
              <LoadError title="Could not load the shared networks" onRetry={() => void mutate()}>
                Check your connection and try again.
              </LoadError>
            ) : networks === undefined ? (
              <p role="status" className="py-4 text-center text-muted">
                Loading...
              </p>
            ) : networks.length === 0 ? (
              <p className="py-4 text-center text-muted">No network is marked as shared.</p>
            ) : (
              <ul aria-label="Shared networks" className="flex flex-col divide-y divide-border">
                {networks.map((network) => (
                  <SharedNetworkRow key={network.networkHash} network={network} onUnmark={setPendingUnmark} />
                ))}
              </ul>
            )}
          </AccordionContent>
        </AccordionItem>
      </Accordion>

      <ConfirmDialog
        open={pendingUnmark !== null}
        onOpenChange={(open) => {
          if (!open) setPendingUnmark(null);
        }}
        title="Unmark Shared Network"
        description={pendingUnmark ? unmarkConfirmText(pendingUnmark) : undefined}
        confirmLabel="Unmark"
        pendingLabel="Unmarking..."
        pending={unmarking}
        onConfirm={confirmUnmark}
      />
    </Card>
  );
}

function SharedNetworkRow({ network, onUnmark }: { network: SharedNetwork; onUnmark: (network: SharedNetwork) => void }) {
  const nameId = useId();
  const noteId = useId();
  const name = sharedNetworkName(network);
  // Networks are unmarked through a member on them; a server that does not name one leaves staff the detail page.
  const cannotUnmark =
    network.member === null
      ? 'No member record is on this network now, so it cannot be unmarked here.'
      : network.member === undefined
        ? 'Unmark it from the detail page of a member on this network.'
        : undefined;
  return (
    <li aria-labelledby={nameId} className="flex flex-col gap-2 py-3 first:pt-0 last:pb-0 sm:flex-row sm:items-center sm:justify-between">
      <div className="flex min-w-0 flex-col gap-0.5">
        <p id={nameId} className="truncate font-semibold text-heading">
          {name}
        </p>
        <p className="text-xs text-muted">
          {network.label ? (
            <>
              <span className="font-mono">{network.networkHash}</span> ·{' '}
            </>
          ) : null}
          {memberRecordCount(network.members)} · marked by {network.markedBy ?? 'unknown'} on{' '}
          <time dateTime={network.createdAt}>{formatDate(network.createdAt)}</time>
        </p>
        {network.member ? (
          <p className="text-xs text-muted">
            Member on it: <Link to={`/admin/user/${encodeURIComponent(network.member.discordId)}`}>{network.member.username}</Link>
          </p>
        ) : null}
        {cannotUnmark ? (
          <p id={noteId} className="text-xs text-muted">
            {cannotUnmark}
          </p>
        ) : null}
      </div>
      <Button
        variant="secondary"
        size="sm"
        className="shrink-0"
        disabled={cannotUnmark !== undefined}
        aria-describedby={cannotUnmark ? noteId : undefined}
        onClick={() => onUnmark(network)}
      >
        Unmark<span className="sr-only"> {name}</span>
      </Button>
    </li>
  );
}
