import { DISMISS_REASON_MAX } from '@shared/text-limits';
import { useId, useState } from 'react';
import { Accordion, AccordionContent, AccordionItem, AccordionTrigger } from '@/components/ui/accordion';
import { Badge, type BadgeColor } from '@/components/ui/badge';
import { ConfirmDialog } from '@/components/ui/dialog';
import { Label } from '@/components/ui/label';
import { Textarea } from '@/components/ui/textarea';
import { useToast } from '@/components/ui/toast';
import { apiErrorMessage } from '@/lib/api';
import { countsAsAlt } from '@shared/alt-evidence-words';
import { FINGERPRINT_COMPONENTS, useUserActions, type AltEntry } from '../../api/members';
import { AltLinkItem } from './alt-link-item';
import { DetailSection } from './detail-section';
import {
  COMPONENT_LABELS,
  CONFIDENCE_GROUPS,
  componentVerdict,
  describeDetectionMethod,
  type ComponentVerdict,
} from './fingerprint-labels';

const verdictBadges: Record<ComponentVerdict, { label: string; color: BadgeColor }> = {
  matched: { label: 'Matched', color: 'green' },
  different: { label: 'Different', color: 'red' },
  unavailable: { label: 'Unavailable', color: 'gray' },
};

/**
 * Identified Alternate Accounts of the member `discordId`: the open links that count
 * (certain, medium) grouped by confidence, then the links staff dismissed ("Not the same
 * person"), greyed, which count nowhere and can be reopened. Possible links are not here:
 * WeakEvidenceSection lists them as shared evidence. Shown when the member has alts or a
 * counted or dismissed link.
 */
export function AltAccountsSection({ discordId, alts }: { discordId: string; alts: readonly AltEntry[] }) {
  const { dismissAltLink, reopenAltLink } = useUserActions(discordId);
  const { toast } = useToast();
  const [confirming, setConfirming] = useState<AltEntry | null>(null);
  const [reason, setReason] = useState('');
  const [dismissing, setDismissing] = useState(false);
  const [reopening, setReopening] = useState<number | null>(null);
  const reasonId = useId();

  const open = alts.filter((alt) => !alt.dismissed && countsAsAlt(alt.confidence));
  const dismissed = alts.filter((alt) => alt.dismissed);
  const certain = alts.filter((alt) => alt.confidence === 'certain');
  const listed = open.length + dismissed.length;

  const askDismiss = (alt: AltEntry) => {
    setReason('');
    setConfirming(alt);
  };
  const confirmDismiss = async () => {
    if (!confirming) return;
    setDismissing(true);
    try {
      await dismissAltLink(confirming.linkId, confirming.discordId, reason.trim() || undefined);
      toast({ title: 'Link dismissed', description: `${confirming.username} no longer counts as an alt of this member.` });
    } catch (error) {
      toast({ variant: 'destructive', title: 'Error', description: apiErrorMessage(error, 'Failed to dismiss the link.') });
      throw error;
    } finally {
      setDismissing(false);
    }
  };
  const reopen = async (alt: AltEntry) => {
    setReopening(alt.linkId);
    try {
      await reopenAltLink(alt.linkId, alt.discordId);
      toast({ title: 'Link reopened', description: `The link to ${alt.username} counts again.` });
    } catch (error) {
      toast({ variant: 'destructive', title: 'Error', description: apiErrorMessage(error, 'Failed to reopen the link.') });
    } finally {
      setReopening(null);
    }
  };
  const item = (alt: AltEntry) => (
    <li key={alt.linkId}>
      <AltLinkItem alt={alt} onDismiss={askDismiss} onReopen={(a) => void reopen(a)} reopening={reopening === alt.linkId} />
    </li>
  );

  return (
    <DetailSection title="Identified Alternate Accounts">
      <div className="flex flex-col gap-6">
        {listed === 0 ? <p className="text-sm text-muted">The linked accounts are no longer on record.</p> : null}
        {CONFIDENCE_GROUPS.map(({ confidence, title }) => {
          const group = open.filter((alt) => alt.confidence === confidence);
          if (group.length === 0) return null;
          return (
            <section key={confidence} aria-label={title} className="flex flex-col gap-3">
              <div className="flex items-center gap-2">
                <h3 className="font-semibold">{title}</h3>
                <Badge color={confidence === 'certain' ? 'red' : 'amber'}>{group.length}</Badge>
              </div>
              <ul className="grid grid-cols-1 gap-3 md:grid-cols-2">{group.map(item)}</ul>
            </section>
          );
        })}
        {dismissed.length > 0 ? (
          <section aria-label="Dismissed links" className="flex flex-col gap-3">
            <div className="flex items-center gap-2">
              <h3 className="font-semibold text-muted">Dismissed links</h3>
              <Badge color="gray">{dismissed.length}</Badge>
            </div>
            <p className="text-sm text-muted">
              Staff said these are not the same person: they count nowhere and are never linked again automatically.
            </p>
            <ul className="grid grid-cols-1 gap-3 md:grid-cols-2">{dismissed.map(item)}</ul>
          </section>
        ) : null}
        {certain.length > 0 ? (
          <Accordion type="multiple" className="rounded-lg border border-border px-4">
            {certain.map((alt) => (
              <AccordionItem key={alt.linkId} value={String(alt.linkId)}>
                <AccordionTrigger>
                  Evidence - {alt.username}
                  {alt.dismissed ? ' (dismissed)' : ''}
                </AccordionTrigger>
                <AccordionContent>
                  <EvidenceComparison alt={alt} />
                </AccordionContent>
              </AccordionItem>
            ))}
          </Accordion>
        ) : null}
      </div>
      <ConfirmDialog
        open={confirming !== null}
        onOpenChange={(next) => {
          if (!next) setConfirming(null);
        }}
        title="Not the same person?"
        description={
          confirming
            ? `${confirming.username} and this member will no longer be linked: the link stops counting for both, and detection will not link them again. The evidence stays listed, and the link can be reopened.`
            : undefined
        }
        confirmLabel="Not the same person"
        pendingLabel="Dismissing..."
        pending={dismissing}
        onConfirm={confirmDismiss}
      >
        <div className="flex flex-col gap-2">
          <Label htmlFor={reasonId}>Reason (optional)</Label>
          <Textarea
            id={reasonId}
            value={reason}
            maxLength={DISMISS_REASON_MAX}
            disabled={dismissing}
            onChange={(event) => setReason(event.target.value)}
            placeholder="e.g. siblings on one home network"
          />
        </div>
      </ConfirmDialog>
    </DetailSection>
  );
}

/**
 * How common the matched device profile is, in a moderator's words: a profile many other
 * members show is weak evidence, one nobody else shows is strong.
 */
export function describeDeviceProfileShared(shared: NonNullable<AltEntry['deviceProfileShared']>): string {
  if (shared.others === 0) return 'No other member shows this device profile.';
  const members = `${shared.atLeast ? 'at least ' : ''}${shared.others} other member${shared.others === 1 ? '' : 's'}`;
  const networks = shared.networks !== null && shared.networks > 1 ? ` on ${shared.networks} networks` : '';
  return `This device profile is shared by ${members}${networks}.`;
}

/** The fingerprintComponents comparison of one certain alt: matched / different / unavailable. */
function EvidenceComparison({ alt }: { alt: AltEntry }) {
  const matched = FINGERPRINT_COMPONENTS.filter((component) => alt.fingerprintComponents[component] === true).length;
  return (
    <div className="flex flex-col gap-3">
      <p className="text-muted">
        {matched} of {FINGERPRINT_COMPONENTS.length} fingerprint components matched · detected by{' '}
        {describeDetectionMethod(alt.detectionMethod)}
      </p>
      {alt.deviceProfileShared ? <p>{describeDeviceProfileShared(alt.deviceProfileShared)}</p> : null}
      <dl className="grid grid-cols-1 gap-2 sm:grid-cols-2">
        {FINGERPRINT_COMPONENTS.map((component) => {
          const verdict = verdictBadges[componentVerdict(alt.fingerprintComponents[component])];
          return (
            <div key={component} className="flex items-center justify-between gap-2 rounded-md bg-surface-sunken/60 px-3 py-2">
              <dt>{COMPONENT_LABELS[component]}</dt>
              <dd>
                <Badge color={verdict.color}>{verdict.label}</Badge>
              </dd>
            </div>
          );
        })}
      </dl>
    </div>
  );
}
