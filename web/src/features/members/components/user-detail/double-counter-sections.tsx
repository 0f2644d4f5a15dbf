import { Badge } from '@/components/ui/badge';
import { FINGERPRINT_COMPONENTS, type UserDetail } from '../../api/members';
import { DetailSection } from './detail-section';
import { COMPONENT_LABELS } from './fingerprint-labels';

/** Double Counter Data: its three counters. */
export function DoubleCounterData({ user }: { user: UserDetail }) {
  const counters = [
    { label: 'Alt Accounts Found', value: user.altsFound },
    { label: 'VPN Attempts Blocked', value: user.vpnAttempts },
    { label: 'Servers verified in', value: user.serversVerifiedIn },
  ];
  return (
    <DetailSection title="Double Counter Data">
      <dl className="grid grid-cols-1 gap-3 sm:grid-cols-3">
        {counters.map((counter) => (
          <div key={counter.label} className="flex flex-col-reverse gap-1 rounded-lg bg-surface-sunken/60 p-4">
            <dt className="text-sm text-muted">{counter.label}</dt>
            <dd className="text-2xl font-bold text-heading">{counter.value}</dd>
          </div>
        ))}
      </dl>
      {user.sharedNetwork?.marked ? (
        <p className="mt-4 text-sm text-muted">
          Shared network{user.sharedNetwork.label ? ` (${user.sharedNetwork.label})` : ''}: IP-only and same-network matches from it do not
          count as alts.
        </p>
      ) : null}
    </DetailSection>
  );
}

/** Double Counter Fingerprint: the device fingerprint hash, and which of its components were readable. */
export function DoubleCounterFingerprint({ user }: { user: UserDetail }) {
  return (
    <DetailSection title="Double Counter Fingerprint">
      <div className="flex flex-col gap-4">
        {user.fingerprint ? (
          <code className="block rounded-md bg-surface-sunken px-3 py-2 font-mono text-sm break-all">{user.fingerprint}</code>
        ) : (
          <p className="text-sm text-muted">No fingerprint recorded</p>
        )}
        {user.fingerprint ? (
          <ul aria-label="Fingerprint components" className="flex flex-wrap gap-1.5">
            {FINGERPRINT_COMPONENTS.map((component) => (
              <li key={component}>
                <Badge color={user.fingerprintComponents[component] === undefined ? 'gray' : 'green'}>
                  {COMPONENT_LABELS[component]}: {user.fingerprintComponents[component] === undefined ? 'unavailable' : 'collected'}
                </Badge>
              </li>
            ))}
          </ul>
        ) : null}
      </div>
    </DetailSection>
  );
}
