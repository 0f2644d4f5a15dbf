import { useEffect, useId, useState, type FormEvent } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Checkbox } from '@/components/ui/checkbox';
import { Label } from '@/components/ui/label';
import { LoadError } from '@/components/ui/load-error';
import { PageShell } from '@/components/ui/page-shell';
import { SimpleSelect } from '@/components/ui/select';
import { TextField } from '@/components/ui/text-field';
import { useToast } from '@/components/ui/toast';
import { ApiError, apiErrorMessage } from '@/lib/api';
import { saveSettings, useSettings, type SettingKey, type SettingsResponse } from '../api/settings';
import { AdminPageHeader, SessionProblem, useAdminSession, useSignInRedirect } from '@/features/admin-shell';
import { changedFields, displayValue, draftOf, SETTING_GROUPS, type Draft, type SettingField } from '../components/settings-fields';

/** The field a 400 names (`{error, field}`), if any. */
function fieldOf(error: unknown): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  try {
    const parsed = JSON.parse(error.bodyText) as { field?: unknown };
    return typeof parsed.field === 'string' ? parsed.field : undefined;
  } catch {
    return undefined;
  }
}

/** /admin/settings (owner and super admins): policies stored in the database, applied without a restart. */
export default function SettingsPage() {
  const { session, isSuperAdmin, failed: sessionFailed, retry: retrySession } = useAdminSession();
  const { data, error, mutate } = useSettings(isSuperAdmin);
  useSignInRedirect(error);

  return (
    <PageShell width="lg">
      <AdminPageHeader
        title="Settings"
        subtitle="Server policies; a saved value replaces the server's default at once, in every process"
        back
      />
      {sessionFailed ? (
        <SessionProblem onRetry={retrySession} />
      ) : session && !isSuperAdmin ? (
        <Alert variant="warning" title="Super admin access required">
          Only the owner and super admins can change settings.
        </Alert>
      ) : data ? (
        <SettingsForm data={data} onSaved={(saved) => void mutate(saved, { revalidate: false })} />
      ) : error ? (
        <LoadError title="Could not load settings" onRetry={() => void mutate()}>
          {apiErrorMessage(error, 'The settings could not be loaded.')}
        </LoadError>
      ) : (
        <p role="status" className="text-muted">
          Loading settings...
        </p>
      )}
    </PageShell>
  );
}

function SettingsForm({ data, onSaved }: { data: SettingsResponse; onSaved: (saved: SettingsResponse) => void }) {
  const { toast } = useToast();
  const handleUnauthorized = useSignInRedirect();
  const [draft, setDraft] = useState<Draft>(() => draftOf(data.settings));
  const [problem, setProblem] = useState<{ message: string; field?: string }>();
  const [saving, setSaving] = useState(false);
  useEffect(() => setDraft(draftOf(data.settings)), [data]);

  const changes = changedFields(draft, data.settings);
  const dirty = Object.keys(changes).length > 0;

  const send = async (change: Record<string, unknown>, done: string) => {
    setSaving(true);
    setProblem(undefined);
    try {
      const saved = await saveSettings(change);
      onSaved(saved);
      toast({ title: done });
    } catch (error) {
      const message = apiErrorMessage(error, 'The settings could not be saved.');
      setProblem({ message, field: fieldOf(error) });
      // the page may be scrolled far from the field or the alert: the toast shows wherever the reader is
      toast({ variant: 'destructive', title: 'Not saved', description: message });
      handleUnauthorized(error);
    } finally {
      setSaving(false);
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (dirty) void send(changes, 'Settings saved');
  };

  return (
    <form noValidate className="flex flex-col gap-6" onSubmit={submit}>
      {problem && !problem.field ? (
        <Alert variant="danger" title="Not saved">
          {problem.message}
        </Alert>
      ) : null}
      {SETTING_GROUPS.map((group) => (
        <Card key={group.title}>
          <CardHeader>
            <CardTitle>{group.title}</CardTitle>
            <CardDescription>{group.description}</CardDescription>
          </CardHeader>
          <CardContent>
            <div className="grid gap-5 sm:grid-cols-2">
              {group.fields.map((field) => (
                <SettingInput
                  key={field.key}
                  field={field}
                  value={draft[field.key]}
                  data={data}
                  disabled={saving}
                  error={problem?.field === field.key ? problem.message : undefined}
                  onChange={(value) => setDraft((d) => ({ ...d, [field.key]: value }))}
                  onReset={() => void send({ [field.key]: null }, `${field.label}: back to the default`)}
                />
              ))}
            </div>
          </CardContent>
        </Card>
      ))}
      <div className="sticky bottom-0 z-10 flex flex-wrap items-center justify-end gap-3 border-t border-border bg-page py-3 shadow-[0_-6px_12px_-8px_rgb(0_0_0/0.35)]">
        {dirty ? <p className="mr-auto text-sm text-muted">{Object.keys(changes).length} unsaved change(s)</p> : null}
        <Button type="button" variant="secondary" disabled={!dirty || saving} onClick={() => setDraft(draftOf(data.settings))}>
          Discard
        </Button>
        <Button type="submit" disabled={!dirty || saving}>
          {saving ? 'Saving...' : 'Save Settings'}
        </Button>
      </div>
    </form>
  );
}

function SettingInput(props: {
  field: SettingField;
  value: string | boolean;
  data: SettingsResponse;
  disabled: boolean;
  error?: string;
  onChange: (value: string | boolean) => void;
  onReset: () => void;
}) {
  const { field, value, data, disabled, error, onChange, onReset } = props;
  const id = useId();
  // a refused value takes the focus (and scrolls into view), so the reader lands on what to fix
  useEffect(() => {
    if (!error) return;
    const control = document.getElementById(id);
    control?.focus();
    control?.scrollIntoView?.({ block: 'center' });
  }, [error, id]);
  const stored = data.stored[field.key as SettingKey] !== undefined;
  const hint = (
    <>
      {field.hint ? `${field.hint} ` : null}
      {stored ? (
        <>
          Default: {displayValue(field, data.defaults[field.key])}.{' '}
          <button
            type="button"
            className="text-blurple underline underline-offset-2 disabled:opacity-50"
            disabled={disabled}
            onClick={onReset}
          >
            Use the default
          </button>
        </>
      ) : (
        'Default value.'
      )}
    </>
  );

  if (field.kind === 'toggle') {
    return (
      <div className="flex flex-col gap-2 sm:col-span-2">
        <div className="flex items-start gap-3">
          <Checkbox id={id} checked={value === true} disabled={disabled} onCheckedChange={onChange} aria-describedby={`${id}-hint`} />
          <Label htmlFor={id}>{field.label}</Label>
        </div>
        <p id={`${id}-hint`} className="text-xs text-muted">
          {hint}
        </p>
      </div>
    );
  }
  if (field.kind === 'choice') {
    return (
      <div className="flex flex-col gap-2">
        <Label htmlFor={id}>{field.label}</Label>
        <SimpleSelect id={id} options={field.options} value={String(value)} disabled={disabled} onValueChange={onChange} />
        <p className="text-xs text-muted">{hint}</p>
        {error ? (
          <p role="alert" className="text-sm text-danger">
            {error}
          </p>
        ) : null}
      </div>
    );
  }
  return (
    <TextField
      id={id}
      label={field.label}
      value={String(value)}
      inputMode={field.kind === 'number' || field.kind === 'optionalId' ? 'numeric' : undefined}
      type={field.kind === 'number' ? 'number' : 'text'}
      min={field.kind === 'number' ? field.min : undefined}
      max={field.kind === 'number' ? field.max : undefined}
      maxLength={field.kind === 'text' ? 100 : field.kind === 'optionalId' ? 20 : undefined}
      placeholder={field.kind === 'optionalId' ? 'None' : undefined}
      disabled={disabled}
      error={error}
      hint={hint}
      onChange={(event) => onChange(event.target.value)}
    />
  );
}
