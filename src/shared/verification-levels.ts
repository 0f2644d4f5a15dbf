import type { GuildVerificationLevel } from 'discord-api-types/v10';

/**
 * Discord's verification levels by number, as Server Settings → Safety Setup names them. Keyed by
 * discord-api-types' GuildVerificationLevel (a type-only import, so the web bundle carries none of it):
 * a level Discord adds or renumbers fails the typecheck here.
 */
const LEVEL_NAMES: Readonly<Record<GuildVerificationLevel, string>> = { 0: 'None', 1: 'Low', 2: 'Medium', 3: 'High', 4: 'Highest' };

/** The level's name for people ('unknown' when none was read; the bare number for one Discord added since). */
export function levelName(level: number | null): string {
  if (level === null) return 'unknown';
  const names: Readonly<Partial<Record<number, string>>> = LEVEL_NAMES;
  return names[level] ?? String(level);
}
