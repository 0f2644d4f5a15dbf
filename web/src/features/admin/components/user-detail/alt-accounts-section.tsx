import { Link } from 'react-router-dom';
import { Accordion, AccordionContent, AccordionItem, AccordionTrigger } from '@/components/ui/accordion';
import { Avatar } from '@/components/ui/avatar';
import { Badge, type BadgeColor } from '@/components/ui/badge';
import { SimpleTooltip } from '@/components/ui/tooltip';
import { FINGERPRINT_COMPONENTS, type AltEntry } from '../../api/members';
import { DetailSection } from './detail-section';
import { COMPONENT_LABELS, CONFIDENCE_GROUPS, componentVerdict, describeDetectionMethod, type ComponentVerdict } from './fingerprint-labels';

const verdictBadges: Record<ComponentVerdict, { label: string; color: BadgeColor }> = {
  matched: { label: 'Matched', color: 'green' },
  different: { label: 'Different', color: 'red' },
  unavailable: { label: 'Unavailable', color: 'gray' },
};

/** Identified Alternate Accounts, grouped by confidence; shown only when altsFound > 0. */
export function AltAccountsSection({ alts }: { alts: readonly AltEntry[] }) {
  const certain = alts.filter((alt) => alt.confidence === 'certain');
  return (
    <DetailSection title="Identified Alternate Accounts">
      <div className="flex flex-col gap-6">
        {alts.length === 0 ? <p className="text-sm text-muted">The linked accounts are no longer on record.</p> : null}
        {CONFIDENCE_GROUPS.map(({ confidence, title }) => {
          const group = alts.filter((alt) => alt.confidence === confidence);
          if (group.length === 0) return null;
          return (
            <section key={confidence} aria-label={title} className="flex flex-col gap-3">
              <div className="flex items-center gap-2">
                <h3 className="font-semibold">{title}</h3>
                <Badge color={confidence === 'certain' ? 'red' : confidence === 'medium' ? 'amber' : 'gray'}>{group.length}</Badge>
              </div>
              <ul className="flex flex-wrap gap-3">
                {group.map((alt) => (
                  <li key={alt.discordId}>
                    <AltAvatar alt={alt} />
                  </li>
                ))}
              </ul>
            </section>
          );
        })}
        {certain.length > 0 ? (
          <Accordion type="multiple" className="rounded-lg border border-border px-4">
            {certain.map((alt) => (
              <AccordionItem key={alt.discordId} value={alt.discordId}>
                <AccordionTrigger>Evidence - {alt.username}</AccordionTrigger>
                <AccordionContent>
                  <EvidenceComparison alt={alt} />
                </AccordionContent>
              </AccordionItem>
            ))}
          </Accordion>
        ) : null}
      </div>
    </DetailSection>
  );
}

/** The avatar links to the alt's own page; its tooltip opens on hover and on keyboard focus. */
function AltAvatar({ alt }: { alt: AltEntry }) {
  return (
    <SimpleTooltip
      content={
        <span className="flex flex-col gap-0.5">
          <span className="font-semibold text-heading">{alt.username}</span>
          <span className="font-mono">{alt.discordId}</span>
          <span>Detected by: {describeDetectionMethod(alt.detectionMethod)}</span>
        </span>
      }
    >
      <Link
        to={`/admin/user/${encodeURIComponent(alt.discordId)}`}
        className="inline-flex rounded-full focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blurple"
      >
        <Avatar src={alt.avatarUrl} name={alt.username} size="lg" />
      </Link>
    </SimpleTooltip>
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
        {matched} of {FINGERPRINT_COMPONENTS.length} fingerprint components matched · detected by {describeDetectionMethod(alt.detectionMethod)}
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
