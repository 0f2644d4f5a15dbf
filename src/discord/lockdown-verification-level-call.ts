import type { REST } from '@discordjs/rest';
import { Routes, type GuildVerificationLevel, type RESTGetAPIGuildResult, type RESTPatchAPIGuildJSONBody } from 'discord-api-types/v10';
import type { Database } from '../db/client';
import type { Logger } from '../logger';
import { readLevelState, writeLevelState } from '../modules/raid';
import { levelName } from '../shared/verification-levels';

/**
 * The outbox's verification_level action (Get Guild, then Modify Guild with the reason):
 * - raise: the level before is stored first (a restart during the lockdown still puts it back),
 *   then the level raised; a server already at least that strict is left alone, with nothing to put back;
 * - restore (`raiseTo` null): the level is read back first and put back only if it is still the one
 *   Gatekeeper set: a level staff changed during the lockdown stays as they set it.
 * A refusal (403, Manage Server missing) is thrown to the outbox, which names the permission; the
 * lockdown holds in Gatekeeper either way.
 */
export function createVerificationLevelCall(deps: { rest: REST; database: Database; guildId: string; logger: Logger; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());
  const { db } = deps.database;

  async function currentLevel(): Promise<number> {
    const guild = (await deps.rest.get(Routes.guild(deps.guildId))) as RESTGetAPIGuildResult;
    return guild.verification_level;
  }

  async function setLevel(level: number, reason: string): Promise<void> {
    const body: RESTPatchAPIGuildJSONBody = { verification_level: level as GuildVerificationLevel };
    await deps.rest.patch(Routes.guild(deps.guildId), { body, reason });
  }

  async function raise(target: number, reason: string): Promise<void> {
    const state = await readLevelState(db);
    // raised already (the owner chose another level meanwhile): the level before stays the one to put back
    const previous = state.raisedTo !== null ? state.previous : await currentLevel();
    if (state.raisedTo === null && previous !== null && previous >= target) {
      await writeLevelState(db, { ...state, raisedTo: null, previous: null, restore: null }, now());
      return;
    }
    await writeLevelState(db, { ...state, raisedTo: target, previous, restore: null }, now());
    await setLevel(target, reason);
  }

  async function restore(reason: string): Promise<void> {
    const state = await readLevelState(db);
    if (state.raisedTo === null || state.previous === null) {
      await writeLevelState(db, { ...state, raisedTo: null, previous: null }, now());
      return;
    }
    const level = await currentLevel();
    const changedByStaff = level !== state.raisedTo;
    if (changedByStaff) {
      deps.logger.info(
        { level: levelName(level), raisedTo: levelName(state.raisedTo) },
        'lockdown ended: the verification level was changed during it, so it stays as staff set it',
      );
    } else {
      await setLevel(state.previous, reason);
    }
    await writeLevelState(
      db,
      { ...state, raisedTo: null, previous: null, restore: changedByStaff ? 'changed_by_staff' : 'restored' },
      now(),
    );
  }

  return {
    run: (raiseTo: number | null, reason: string) => (raiseTo === null ? restore(reason) : raise(raiseTo, reason)),
  };
}

export type VerificationLevelCall = ReturnType<typeof createVerificationLevelCall>;
