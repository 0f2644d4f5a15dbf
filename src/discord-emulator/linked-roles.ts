import { ApplicationRoleConnectionMetadataType, type APIApplicationRoleConnectionMetadata } from 'discord-api-types/v10';
import type { LinkedRoleRequirement, RoleConnectionRecord } from './state';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Whether a user's role connection meets one requirement of a linked role, as Discord compares them
 * (docs/resources/application-role-connection-metadata, "Application Role Connection Metadata Type"):
 * integers and booleans compare the stored value with the role's; the date types compare the stored
 * ISO8601 date with "`value` days before now". A field the user's connection lacks meets nothing.
 */
export function meetsRequirement(
  field: APIApplicationRoleConnectionMetadata | undefined,
  stored: string | undefined,
  requirement: LinkedRoleRequirement,
  now: number,
): boolean {
  if (!field || stored === undefined) return false;
  const number = Number(stored);
  switch (field.type) {
    case ApplicationRoleConnectionMetadataType.IntegerLessThanOrEqual:
      return number <= requirement.value;
    case ApplicationRoleConnectionMetadataType.IntegerGreaterThanOrEqual:
      return number >= requirement.value;
    case ApplicationRoleConnectionMetadataType.IntegerEqual:
      return number === requirement.value;
    case ApplicationRoleConnectionMetadataType.IntegerNotEqual:
      return number !== requirement.value;
    case ApplicationRoleConnectionMetadataType.DatetimeLessThanOrEqual:
      // the date is at most `value` days ago: on or after the cut-off
      return Date.parse(stored) >= now - requirement.value * DAY_MS;
    case ApplicationRoleConnectionMetadataType.DatetimeGreaterThanOrEqual:
      // the date is at least `value` days ago
      return Date.parse(stored) <= now - requirement.value * DAY_MS;
    case ApplicationRoleConnectionMetadataType.BooleanEqual:
      return number === requirement.value;
    case ApplicationRoleConnectionMetadataType.BooleanNotEqual:
      return number !== requirement.value;
  }
}

/** Whether a connection meets every requirement of a linked role (no connection: none). */
export function meetsLinkedRole(
  metadata: readonly APIApplicationRoleConnectionMetadata[],
  connection: RoleConnectionRecord | undefined,
  requirements: readonly LinkedRoleRequirement[],
  now: number,
): boolean {
  if (!connection) return false;
  return requirements.every((requirement) =>
    meetsRequirement(
      metadata.find((field) => field.key === requirement.key),
      connection.metadata[requirement.key],
      requirement,
      now,
    ),
  );
}
