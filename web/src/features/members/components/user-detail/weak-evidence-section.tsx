import { Link } from 'react-router-dom';
import { Avatar } from '@/components/ui/avatar';
import { countsAsAlt, describeAltEvidence, WEAK_EVIDENCE_HEADING } from '@shared/alt-evidence-words';
import type { AltEntry } from '../../api/members';
import { DetailSection } from './detail-section';

/** What the weak evidence is, said before anyone reads the names below it. */
export const WEAK_EVIDENCE_NOTE =
  'Members who share something many unrelated people share, such as a popular phone model or a home, school or mobile network. This is context, not an accusation: it is not counted as an alt and never changes anyone’s standing.';

/** The open possible links of a member: the weak evidence staff may read, never counted. */
export function weakEvidenceOf(alts: readonly AltEntry[]): AltEntry[] {
  return alts.filter((alt) => !alt.dismissed && !countsAsAlt(alt.confidence));
}

/**
 * "Shares a device profile or network with": each member a possible link joins this one to,
 * with what they share and how common it is, without a count, badge or alt wording.
 */
export function WeakEvidenceSection({ alts }: { alts: readonly AltEntry[] }) {
  const weak = weakEvidenceOf(alts);
  if (weak.length === 0) return null;
  return (
    <DetailSection title={WEAK_EVIDENCE_HEADING} description={WEAK_EVIDENCE_NOTE}>
      <ul aria-label={WEAK_EVIDENCE_HEADING} className="grid grid-cols-1 gap-3 md:grid-cols-2">
        {weak.map((alt) => {
          const href = `/admin/user/${encodeURIComponent(alt.discordId)}`;
          return (
            <li key={alt.linkId} className="flex items-start gap-3 rounded-lg border border-border bg-surface-sunken/30 p-3">
              <Link
                to={href}
                className="inline-flex shrink-0 rounded-full focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blurple"
              >
                <Avatar src={alt.avatarUrl} name={alt.username} size="md" />
              </Link>
              <div className="flex min-w-0 flex-1 flex-col gap-1">
                <Link
                  to={href}
                  tabIndex={-1}
                  aria-hidden="true"
                  className="font-semibold text-heading [overflow-wrap:anywhere] no-underline hover:underline"
                >
                  {alt.username}
                </Link>
                <p className="text-sm break-words text-muted">{describeAltEvidence(alt)}</p>
              </div>
            </li>
          );
        })}
      </ul>
    </DetailSection>
  );
}
