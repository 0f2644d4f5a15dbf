import {
  ApplicationRoleConnectionMetadataType,
  type RESTPutAPIApplicationRoleConnectionMetadataJSONBody,
  type RESTPutAPICurrentUserApplicationRoleConnectionJSONBody,
} from 'discord-api-types/v10';
import { memberStanding, type StandingSubject } from '../../shared/member-badges';

/**
 * "Verified with Gatekeeper" as a Linked Role requirement. Gatekeeper registers three metadata
 * fields for the application; a server admin picks them in a role's Links tab (Discord compares a
 * member's values with the role's: docs/resources/application-role-connection-metadata), and each
 * member's role connection carries their values, written with their own token.
 */

/** The name Discord shows on a member's profile for the connection. */
export const PLATFORM_NAME = 'Gatekeeper';

/** The metadata fields, as registered (keys are a-z, 0-9 and _; at most 5 fields). */
export const ROLE_CONNECTION_METADATA = [
  {
    type: ApplicationRoleConnectionMetadataType.BooleanEqual,
    key: 'verified',
    name: 'Verified',
    description: 'Verified with Gatekeeper on this server',
  },
  {
    type: ApplicationRoleConnectionMetadataType.DatetimeGreaterThanOrEqual,
    key: 'verified_since',
    name: 'Verified for (days)',
    description: 'Days since the member was verified with Gatekeeper',
  },
  {
    type: ApplicationRoleConnectionMetadataType.BooleanEqual,
    key: 'not_alt',
    name: 'Not flagged as an alt',
    description: 'Gatekeeper has not flagged this account as an alt',
  },
] satisfies RESTPutAPIApplicationRoleConnectionMetadataJSONBody;

/** What Gatekeeper knows of the member (their record; none: never verified here). */
export type RoleConnectionSubject = StandingSubject & { verifiedAt: Date };

/**
 * The member's role connection: verified (1) when their standing is verified (rules confirmed, not
 * Limited Access, not an alt), since when, and whether Gatekeeper flags them as an alt (suspected or
 * certain). A member without a record gets 0 everywhere and no date.
 */
export function roleConnectionFor(
  member: RoleConnectionSubject | undefined,
  username: string,
): RESTPutAPICurrentUserApplicationRoleConnectionJSONBody {
  const standing = member ? memberStanding(member) : 'pending';
  const verified = standing === 'verified';
  const flagged = standing === 'certain_alt' || standing === 'suspected_alt';
  return {
    platform_name: PLATFORM_NAME,
    platform_username: username.slice(0, 100),
    metadata: {
      verified: verified ? '1' : '0',
      ...(verified && member ? { verified_since: member.verifiedAt.toISOString() } : {}),
      not_alt: member && !flagged ? '1' : '0',
    },
  };
}
