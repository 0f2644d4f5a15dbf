/**
 * P4's evidence for its calls-per-member figure: what each member's calls were, and what
 * the same role changes would cost sent the other ways the bot can send them.
 *
 * A role change reaches Discord either as one Modify Guild Member (the member-edit
 * bucket) or role by role, one Add / Remove Guild Member Role call per role (the
 * member-roles bucket, two calls for Unverified → Verified). Fewest calls means every
 * change as one Modify Guild Member, and then member-edit alone carries them. Shortest
 * settle means splitting the changes so both buckets finish together, at the price of
 * the role-by-role changes' second call. No split gets both. The product sends every change
 * role by role (Modify Guild Member replaces the whole list and drops roles others gave, which
 * the bot is not told of): these prices say what that costs.
 */

/** One bot call from the emulator's request log. */
export interface LoggedCall {
  method: string;
  /** the request path, with or without the `/vN` API version */
  path: string;
}

/** A bucket's limit: `limit` calls per `windowMs`. */
export interface BucketRate {
  limit: number;
  windowMs: number;
}

const MEMBER_PATH = /^(?:\/v\d+)?\/guilds\/\d+\/members\/(\d+)(\/roles\/\d+)?$/;

/** Discord's names for the member calls the bot makes. */
function callName(method: string, isRole: boolean): string {
  if (isRole) return method === 'PUT' ? 'Add Guild Member Role' : method === 'DELETE' ? 'Remove Guild Member Role' : `${method} role`;
  const names: Record<string, string> = {
    PUT: 'Add Guild Member',
    PATCH: 'Modify Guild Member',
    GET: 'Get Guild Member',
    DELETE: 'Remove Guild Member',
  };
  return names[method] ?? `${method} member`;
}

export interface MemberCalls {
  /** the members the calls acted on */
  members: number;
  /** each distinct sequence of calls a member got (in the order sent), with how many members got it; most common first */
  patterns: { calls: string[]; members: number }[];
  /** Modify Guild Member calls */
  modify: number;
  /** Add / Remove Guild Member Role calls */
  roleCalls: number;
  /** changes sent role by role: per member, its role calls in twos (a lone one is a change of its own) */
  roleByRole: number;
}

/** Groups the logged calls by the member they act on (calls on no member, e.g. messages, are left out). */
export function memberCalls(log: readonly LoggedCall[]): MemberCalls {
  const byMember = new Map<string, { calls: string[]; roleCalls: number }>();
  let modify = 0;
  let roleCalls = 0;
  for (const call of log) {
    const match = MEMBER_PATH.exec(call.path.split('?')[0]!);
    if (!match) continue;
    const isRole = match[2] !== undefined;
    const member = byMember.get(match[1]!) ?? { calls: [], roleCalls: 0 };
    member.calls.push(callName(call.method, isRole));
    byMember.set(match[1]!, member);
    if (isRole) {
      roleCalls += 1;
      member.roleCalls += 1;
    } else if (call.method === 'PATCH') modify += 1;
  }
  const counted = new Map<string, { calls: string[]; members: number }>();
  for (const { calls } of byMember.values()) {
    const key = calls.join(' + ');
    const seen = counted.get(key) ?? { calls, members: 0 };
    seen.members += 1;
    counted.set(key, seen);
  }
  const patterns = [...counted.values()].sort((a, b) => b.members - a.members || a.calls.length - b.calls.length);
  const roleByRole = [...byMember.values()].reduce((sum, m) => sum + Math.ceil(m.roleCalls / 2), 0);
  return { members: byMember.size, patterns, modify, roleCalls, roleByRole };
}

/** A way of sending a raid's role changes: its bot calls in all, per member, and the least time the two role buckets allow. */
export interface RoleChangePlan {
  calls: number;
  perMember: number;
  /** seconds the role changes need at the buckets' rates (the other buckets are not counted) */
  seconds: number;
}

/**
 * The same role changes sent the two extreme ways, from one run's counts: every change as
 * one Modify Guild Member (fewest calls), and the split that keeps member-edit and
 * member-roles busy to the same end (shortest time). A change sent role by role costs the
 * run's own average role calls per such change (2 when nothing else was measured).
 */
export function roleChangePlans(input: { total: number; members: number; calls: MemberCalls; edit: BucketRate; roles: BucketRate }): {
  fewestCalls: RoleChangePlan;
  shortest: RoleChangePlan;
} {
  const { total, calls } = input;
  const members = Math.max(1, input.members);
  const changes = calls.modify + calls.roleByRole;
  const otherCalls = total - calls.modify - calls.roleCalls;
  const perRoleChange = calls.roleByRole > 0 ? calls.roleCalls / calls.roleByRole : 2;
  const editPerSecond = input.edit.limit / (input.edit.windowMs / 1000);
  const rolesPerSecond = input.roles.limit / (input.roles.windowMs / 1000);

  const fewest = otherCalls + changes;
  const fewestCalls = { calls: fewest, perMember: fewest / members, seconds: changes / editPerSecond };

  // both buckets busy for the same time t: edit·t changes as Modify, roles·t / perRoleChange role by role
  const seconds = changes / (editPerSecond + rolesPerSecond / perRoleChange);
  const asModify = editPerSecond * seconds;
  const split = otherCalls + asModify + (changes - asModify) * perRoleChange;
  const shortest = { calls: split, perMember: split / members, seconds };
  return { fewestCalls, shortest };
}
