import { STAFF_NOTE_MAX } from '@shared/text-limits';
import { useId, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import type { ManualAltStatus } from '@shared/member-badges';
import { Accordion, AccordionContent, AccordionItem, AccordionTrigger } from '@/components/ui/accordion';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Label } from '@/components/ui/label';
import { SimpleSelect } from '@/components/ui/select';
import { Textarea } from '@/components/ui/textarea';
import { useToast } from '@/components/ui/toast';
import { apiErrorMessage } from '@/lib/api';
import { useUserActions, type AttemptSummary, type UserDetail } from '../../api/members';
import { formatDate, formatDateTime, useSignInRedirect } from '@/features/admin-shell';
import { DetailSection } from './detail-section';
import { SharedNetworkControl } from './shared-network-control';

type AltChoice = 'none' | ManualAltStatus;

const altOptions = [
  { value: 'none', label: 'No Override' },
  { value: 'suspected_alt', label: 'Suspected Alt' },
  { value: 'certain_alt', label: 'Certain Alt' },
];

export function deleteUserConfirmText(username: string): string {
  return `Are you sure you want to permanently delete all records for ${username}? This action cannot be undone.`;
}

/** The Admin Management accordion (including Shared Network); Admin Notes starts open, Delete User is for super admins. */
export function AdminManagement({ user, isSuperAdmin }: { user: UserDetail; isSuperAdmin: boolean }) {
  return (
    <DetailSection title="Admin Management">
      <Accordion type="multiple" defaultValue={['notes']}>
        <AccordionItem value="alt-status">
          <AccordionTrigger>Manual Alt Status Override</AccordionTrigger>
          <AccordionContent>
            <AltStatusOverride key={user.manualAltStatus ?? 'none'} user={user} />
          </AccordionContent>
        </AccordionItem>
        <AccordionItem value="shared-network">
          <AccordionTrigger>Shared Network</AccordionTrigger>
          <AccordionContent>
            <SharedNetworkControl key={String(user.sharedNetwork?.marked ?? false)} user={user} />
          </AccordionContent>
        </AccordionItem>
        <AccordionItem value="verify">
          <AccordionTrigger>Manual Verification</AccordionTrigger>
          <AccordionContent>
            <ManualVerification user={user} />
          </AccordionContent>
        </AccordionItem>
        <AccordionItem value="notes">
          <AccordionTrigger>Admin Notes</AccordionTrigger>
          <AccordionContent>
            <AdminNotes key={user.adminNotes[0]?.id ?? 'none'} user={user} />
          </AccordionContent>
        </AccordionItem>
        <AccordionItem value="evidence">
          <AccordionTrigger>Verification Evidence</AccordionTrigger>
          <AccordionContent>
            <VerificationEvidence user={user} />
          </AccordionContent>
        </AccordionItem>
        {isSuperAdmin ? (
          <AccordionItem value="delete">
            <AccordionTrigger>Delete User</AccordionTrigger>
            <AccordionContent>
              <DeleteUser user={user} />
            </AccordionContent>
          </AccordionItem>
        ) : null}
      </Accordion>
    </DetailSection>
  );
}

function AltStatusOverride({ user }: { user: UserDetail }) {
  const { setAltStatus } = useUserActions(user.discordId);
  const handleUnauthorized = useSignInRedirect();
  const { toast } = useToast();
  const [choice, setChoice] = useState<AltChoice>(user.manualAltStatus ?? 'none');
  const [saving, setSaving] = useState(false);
  const selectId = useId();

  const save = async () => {
    setSaving(true);
    try {
      await setAltStatus(choice === 'none' ? null : choice);
      toast({ title: 'Alt status updated', description: 'Manual alt status has been changed successfully.' });
    } catch (error) {
      toast({ variant: 'destructive', title: 'Error', description: 'Failed to update alt status.' });
      handleUnauthorized(error);
    } finally {
      setSaving(false);
    }
  };

  return (
    <div className="flex flex-col gap-3">
      <p className="text-muted">A staff override always wins over automatic detection.</p>
      <div className="flex flex-col gap-2 sm:flex-row sm:items-end">
        <div className="flex flex-1 flex-col gap-2">
          <Label htmlFor={selectId}>Manual alt status</Label>
          <SimpleSelect
            id={selectId}
            value={choice}
            disabled={saving}
            onValueChange={(value) => setChoice(value as AltChoice)}
            options={altOptions}
          />
        </div>
        <Button loading={saving} onClick={() => void save()}>
          {saving ? 'Saving...' : 'Save Alt Status'}
        </Button>
      </div>
    </div>
  );
}

function ManualVerification({ user }: { user: UserDetail }) {
  const { manuallyVerify } = useUserActions(user.discordId);
  const handleUnauthorized = useSignInRedirect();
  const { toast } = useToast();
  const [pending, setPending] = useState(false);
  const alreadyVerified = user.verificationStatus === 'verified';

  const verify = async () => {
    setPending(true);
    try {
      await manuallyVerify();
      toast({ title: 'Manual verification successful', description: 'User has been manually verified and granted server access.' });
    } catch (error) {
      toast({ variant: 'destructive', title: 'Error', description: apiErrorMessage(error, 'Failed to manually verify user.') });
      handleUnauthorized(error);
    } finally {
      setPending(false);
    }
  };

  return (
    <div className="flex flex-col gap-3">
      <p className="text-muted">Grants this user the verified role and full server access, whatever the automatic checks said.</p>
      <div>
        <Button loading={pending} disabled={alreadyVerified} onClick={() => void verify()}>
          {alreadyVerified ? 'Already Verified' : pending ? 'Verifying...' : 'Manually Verify User'}
        </Button>
      </div>
    </div>
  );
}

function AdminNotes({ user }: { user: UserDetail }) {
  const { saveNote } = useUserActions(user.discordId);
  const handleUnauthorized = useSignInRedirect();
  const { toast } = useToast();
  const latest = user.adminNotes[0];
  const [note, setNote] = useState(latest?.note ?? '');
  const [saving, setSaving] = useState(false);
  const textareaId = useId();
  const metaId = useId();

  const save = async () => {
    setSaving(true);
    try {
      await saveNote(note.trim());
      toast({ title: 'Note saved', description: 'Admin note has been updated successfully.' });
    } catch (error) {
      toast({ variant: 'destructive', title: 'Error', description: 'Failed to save admin note.' });
      handleUnauthorized(error);
    } finally {
      setSaving(false);
    }
  };

  return (
    <div className="flex flex-col gap-3">
      <Label htmlFor={textareaId}>Internal note (visible to staff only)</Label>
      <Textarea
        id={textareaId}
        value={note}
        maxLength={STAFF_NOTE_MAX}
        disabled={saving}
        onChange={(event) => setNote(event.target.value)}
        placeholder="Add a note about this user..."
        aria-describedby={latest ? metaId : undefined}
      />
      <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
        <p id={metaId} className="text-xs text-muted">
          {latest
            ? `Last saved${latest.authorName ? ` by ${latest.authorName}` : ''} on ${formatDateTime(latest.createdAt)}`
            : 'No note yet.'}
        </p>
        <Button loading={saving} disabled={note.trim() === '' || note.trim() === (latest?.note ?? '')} onClick={() => void save()}>
          {saving ? 'Saving...' : 'Save Note'}
        </Button>
      </div>
    </div>
  );
}

const outcomeLabels: Record<AttemptSummary['outcome'], string> = {
  verified: 'Verified',
  limited_access: 'Limited Access',
  denied: 'Denied',
};
const verdictLabels: Record<string, string> = {
  clean: 'No VPN',
  vpn: 'VPN',
  proxy: 'Proxy',
  tor: 'Tor',
  datacenter: 'Datacenter',
  unknown: 'Unknown',
};

function VerificationEvidence({ user }: { user: UserDetail }) {
  if (user.evidence.length === 0) {
    return (
      <p className="text-muted">
        {user.source === 'manual'
          ? `No verification attempts recorded: this record was created manually on ${formatDate(user.timestamp)}.`
          : 'No verification attempts recorded.'}
      </p>
    );
  }
  return (
    <ol className="flex flex-col gap-2" aria-label="Verification attempts">
      {user.evidence.map((attempt, index) => (
        <li key={`${attempt.at}-${index}`} className="flex flex-col gap-2 rounded-md bg-surface-sunken/60 p-3">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <time dateTime={attempt.at} className="font-medium text-heading">
              {formatDateTime(attempt.at)}
            </time>
            <Badge color={attempt.outcome === 'verified' ? 'green' : attempt.outcome === 'limited_access' ? 'amber' : 'red'}>
              {outcomeLabels[attempt.outcome]}
            </Badge>
          </div>
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-xs">
            <dt className="text-muted">VPN check</dt>
            <dd>
              {verdictLabels[attempt.vpnVerdict] ?? attempt.vpnVerdict}
              {attempt.vpnProvider ? ` · ${attempt.vpnProvider}` : ''}
              {attempt.vpnSource ? ` (${attempt.vpnSource})` : ''}
              {attempt.vpnCheckFailed ? ' · check failed' : ''}
              {attempt.timezoneMismatch ? ' · timezone does not match IP country' : ''}
            </dd>
            <dt className="text-muted">Signals collected</dt>
            <dd>
              {[
                attempt.ipRecorded && 'IP hash',
                attempt.networkRecorded && 'network hash',
                attempt.fingerprintRecorded && 'device fingerprint',
              ]
                .filter(Boolean)
                .join(', ') || 'none'}
            </dd>
          </dl>
        </li>
      ))}
    </ol>
  );
}

function DeleteUser({ user }: { user: UserDetail }) {
  const { deleteUser } = useUserActions(user.discordId);
  const handleUnauthorized = useSignInRedirect();
  const { toast } = useToast();
  const navigate = useNavigate();
  const [pending, setPending] = useState(false);

  const remove = async () => {
    if (!window.confirm(deleteUserConfirmText(user.username))) return;
    setPending(true);
    try {
      await deleteUser();
      toast({ title: 'User deleted', description: 'All verification records for this user have been permanently deleted.' });
      void navigate('/admin');
    } catch (error) {
      setPending(false);
      toast({ variant: 'destructive', title: 'Error', description: apiErrorMessage(error, 'Failed to delete user.') });
      handleUnauthorized(error);
    }
  };

  return (
    <div className="flex flex-col gap-3">
      <p className="text-muted">
        Permanently deletes this user&apos;s verification record, attempts, alt links and notes. The audit log keeps a record of the
        deletion.
      </p>
      <div>
        <Button variant="destructive" loading={pending} onClick={() => void remove()}>
          {pending ? 'Deleting...' : 'Delete User'}
        </Button>
      </div>
    </div>
  );
}
