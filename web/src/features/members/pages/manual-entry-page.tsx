import { useId, useState, type FormEvent, type KeyboardEvent } from 'react';
import { Link } from 'react-router-dom';
import type { ManualAltStatus, MemberStatus } from '@shared/member-badges';
import { Avatar } from '@/components/ui/avatar';
import { Button, buttonVariants } from '@/components/ui/button';
import { Card, CardContent } from '@/components/ui/card';
import { FieldError } from '@/components/ui/field-error';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { PageShell } from '@/components/ui/page-shell';
import { TextField } from '@/components/ui/text-field';
import { SimpleSelect } from '@/components/ui/select';
import { useToast } from '@/components/ui/toast';
import { apiErrorMessage } from '@/lib/api';
import { fetchDiscordUser, useCreateManualEntry } from '../api/members';
import { AdminPageHeader, SearchIcon, useAdminSession, useSignInRedirect } from '@/features/admin-shell';

type AltChoice = 'none' | ManualAltStatus;

interface ManualEntryForm {
  discordId: string;
  username: string;
  avatarUrl: string;
  status: MemberStatus;
  rulesConfirmed: 'true' | 'false';
  manualAltStatus: AltChoice;
}

const emptyForm: ManualEntryForm = {
  discordId: '',
  username: '',
  avatarUrl: '',
  status: 'verified',
  rulesConfirmed: 'true',
  manualAltStatus: 'none',
};

const statusOptions = [
  { value: 'verified', label: 'Verified' },
  { value: 'limited_access', label: 'Limited Access' },
];
const rulesOptions = [
  { value: 'true', label: 'Yes' },
  { value: 'false', label: 'No' },
];
// Radix Select values cannot be '': 'none' stands for no override and is sent as null.
const altOptions = [
  { value: 'none', label: 'No Override' },
  { value: 'suspected_alt', label: 'Suspected Alt' },
  { value: 'certain_alt', label: 'Certain Alt' },
];

interface FormErrors {
  discordId?: string;
  username?: string;
}

/** /admin/manual-entry: create a verification record by hand, optionally filled in from Discord. */
export default function ManualEntryPage() {
  useAdminSession();
  const createManualEntry = useCreateManualEntry();
  const handleUnauthorized = useSignInRedirect();
  const { toast } = useToast();
  const [form, setForm] = useState<ManualEntryForm>(emptyForm);
  const [errors, setErrors] = useState<FormErrors>({});
  const [fetching, setFetching] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const ids = { discordId: useId(), username: useId(), avatarUrl: useId(), status: useId(), rules: useId(), alt: useId(), hint: useId() };

  const update = <K extends keyof ManualEntryForm>(field: K, value: ManualEntryForm[K]) => {
    setForm((current) => ({ ...current, [field]: value }));
    // a required field's message goes as soon as the field holds something: it no longer applies
    if ((field === 'discordId' || field === 'username') && value.trim() !== '') {
      const key: keyof FormErrors = field;
      setErrors((current) => (current[key] ? { ...current, [key]: undefined } : current));
    }
  };

  const fetchUser = async () => {
    const discordId = form.discordId.trim();
    if (!discordId) {
      setErrors((current) => ({ ...current, discordId: 'Please enter a Discord ID' }));
      return;
    }
    setErrors((current) => ({ ...current, discordId: undefined }));
    setFetching(true);
    try {
      const user = await fetchDiscordUser(discordId);
      setForm((current) => ({ ...current, username: user.username ?? '', avatarUrl: user.avatarUrl ?? '' }));
      setErrors((current) => ({ ...current, username: undefined }));
      toast({ title: 'Discord user fetched', description: `Found user: ${user.username}` });
    } catch (error) {
      toast({ variant: 'destructive', title: apiErrorMessage(error, 'Failed to fetch Discord user data') });
      handleUnauthorized(error);
    } finally {
      setFetching(false);
    }
  };

  const onDiscordIdKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    // Enter in the ID field fetches (the search button's job) rather than submitting half a form.
    if (event.key !== 'Enter') return;
    event.preventDefault();
    if (!fetching) void fetchUser();
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const next: FormErrors = {};
    if (!form.discordId.trim()) next.discordId = 'Discord ID is required';
    if (!form.username.trim()) next.username = 'Username is required';
    setErrors(next);
    if (next.discordId || next.username) return;
    setSubmitting(true);
    try {
      await createManualEntry({
        discordId: form.discordId.trim(),
        username: form.username.trim(),
        avatarUrl: form.avatarUrl.trim() || null,
        status: form.status,
        rulesConfirmed: form.rulesConfirmed,
        manualAltStatus: form.manualAltStatus === 'none' ? null : form.manualAltStatus,
      });
      toast({ title: 'Entry created', description: 'Manual verification entry has been created successfully.' });
      setForm(emptyForm);
      setErrors({});
    } catch (error) {
      toast({ variant: 'destructive', title: apiErrorMessage(error, 'Failed to create manual entry.') });
      handleUnauthorized(error);
    } finally {
      setSubmitting(false);
    }
  };

  const showPreview = form.username.trim() !== '' || form.avatarUrl.trim() !== '';
  const busy = submitting;

  return (
    <PageShell width="lg">
      <AdminPageHeader title="Manual Entry Creation" subtitle="Create a verification record manually" back />
      <Card>
        <CardContent>
          <form noValidate className="flex flex-col gap-5" onSubmit={(event) => void submit(event)}>
            <div className="flex flex-col gap-2">
              <Label htmlFor={ids.discordId}>Discord ID</Label>
              <div className="flex gap-2">
                <Input
                  id={ids.discordId}
                  name="discordId"
                  inputMode="numeric"
                  autoComplete="off"
                  placeholder="e.g. 123456789012345678"
                  maxLength={21}
                  value={form.discordId}
                  disabled={busy}
                  onChange={(event) => update('discordId', event.target.value)}
                  onKeyDown={onDiscordIdKeyDown}
                  aria-invalid={errors.discordId ? true : undefined}
                  aria-describedby={`${ids.hint}${errors.discordId ? ` ${ids.discordId}-error` : ''}`}
                />
                <Button
                  variant="secondary"
                  className="shrink-0"
                  aria-label="Fetch Discord user"
                  disabled={!form.discordId.trim() || fetching || busy}
                  loading={fetching}
                  onClick={() => void fetchUser()}
                >
                  {fetching ? null : <SearchIcon className="size-4" />}
                </Button>
              </div>
              <p id={ids.hint} className="text-xs text-muted">
                Enter a Discord ID and click search to auto-fetch user data
              </p>
              <FieldError id={`${ids.discordId}-error`} message={errors.discordId} />
            </div>

            {showPreview ? (
              <section aria-label="Preview" className="flex items-center gap-4 rounded-lg border border-border bg-surface-sunken/60 p-4">
                <Avatar src={form.avatarUrl.trim() || null} name={form.username.trim() || null} size="lg" />
                <div className="flex min-w-0 flex-col">
                  <span className="truncate font-semibold text-heading">{form.username.trim() || 'Unknown user'}</span>
                  <span className="truncate font-mono text-xs text-muted">{form.discordId.trim() || 'No Discord ID yet'}</span>
                </div>
              </section>
            ) : null}

            <TextField
              id={ids.username}
              label="Username"
              name="username"
              autoComplete="off"
              maxLength={100}
              value={form.username}
              disabled={busy}
              onChange={(event) => update('username', event.target.value)}
              error={errors.username}
            />

            <TextField
              id={ids.avatarUrl}
              label="Avatar URL (optional)"
              name="avatarUrl"
              type="url"
              autoComplete="off"
              placeholder="https://cdn.discordapp.com/avatars/..."
              value={form.avatarUrl}
              disabled={busy}
              onChange={(event) => update('avatarUrl', event.target.value)}
            />

            <div className="grid gap-5 sm:grid-cols-3">
              <div className="flex flex-col gap-2">
                <Label htmlFor={ids.status}>Verification Status</Label>
                <SimpleSelect
                  id={ids.status}
                  value={form.status}
                  disabled={busy}
                  onValueChange={(value) => update('status', value as MemberStatus)}
                  options={statusOptions}
                />
                {form.status === 'limited_access' ? (
                  <p className="text-xs text-muted">Limited Access records keep only the Discord ID and username.</p>
                ) : null}
              </div>
              <div className="flex flex-col gap-2">
                <Label htmlFor={ids.rules}>Rules Confirmed</Label>
                <SimpleSelect
                  id={ids.rules}
                  value={form.rulesConfirmed}
                  disabled={busy}
                  onValueChange={(value) => update('rulesConfirmed', value === 'false' ? 'false' : 'true')}
                  options={rulesOptions}
                />
              </div>
              <div className="flex flex-col gap-2">
                <Label htmlFor={ids.alt}>Manual Alt Status (optional)</Label>
                <SimpleSelect
                  id={ids.alt}
                  value={form.manualAltStatus}
                  disabled={busy}
                  onValueChange={(value) => update('manualAltStatus', value as AltChoice)}
                  options={altOptions}
                />
              </div>
            </div>

            <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
              <Link to="/admin" className={buttonVariants({ variant: 'secondary' })}>
                Cancel
              </Link>
              <Button type="submit" loading={submitting}>
                {submitting ? 'Creating...' : 'Create Entry'}
              </Button>
            </div>
          </form>
        </CardContent>
      </Card>
    </PageShell>
  );
}
