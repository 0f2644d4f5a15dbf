import type { GuildDirectory } from '../guild-directory';
import type { RoleProblem } from '../role-safety';

/** A role Gatekeeper will not give or take while its configuration is refused (role-safety.ts). */
export class RoleRefusedError extends Error {
  constructor(problem: RoleProblem) {
    super(`Role configuration refused: ${problem.problem} Fix: ${problem.fix}`);
    this.name = 'RoleRefused';
  }
}

/**
 * The directory with its roles guarded: a role whose configuration the role-safety rule refuses
 * (a Verified role carrying Administrator, the Staff role chosen as Verified, …) resolves to
 * nothing but a RoleRefusedError naming the problem and its fix. The outbox then retries the
 * change with its backoff (the error is not Discord's, so it counts as passing), and it goes
 * through once the server or the setting is fixed; given up, its failure line carries the fix.
 * The bot's staff check resolves no Staff role meanwhile.
 */
export function guardRoles(directory: GuildDirectory, refused: () => Promise<RoleProblem[]>): GuildDirectory {
  return {
    ...directory,
    async roleId(role) {
      const problem = (await refused()).find((p) => p.slots.includes(role));
      if (problem) throw new RoleRefusedError(problem);
      return directory.roleId(role);
    },
  };
}
