import { GuildVerificationLevel } from 'discord-api-types/v10';
import { levelName } from './verification-levels';

describe('levelName', () => {
  it("names Discord's levels as Server Settings → Safety Setup does", () => {
    expect(levelName(GuildVerificationLevel.None)).toBe('None');
    expect(levelName(GuildVerificationLevel.Medium)).toBe('Medium');
    expect(levelName(GuildVerificationLevel.VeryHigh)).toBe('Highest');
  });

  it('says unknown for a level not read, and the bare number for one it does not know', () => {
    expect(levelName(null)).toBe('unknown');
    expect(levelName(7)).toBe('7');
  });
});
