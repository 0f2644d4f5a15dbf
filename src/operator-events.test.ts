import { Writable } from 'node:stream';
import { createLogger } from './logger';
import * as events from './operator-events';

function captured() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'info', destination }) };
}

const ID = '100000000000000001';
const MAIN = '100000000000000002';

describe('operator events', () => {
  it.each<[string, (logger: ReturnType<typeof captured>['logger']) => void, string, string]>([
    ['verified', (l) => events.logVerified(l, { discordId: ID, via: 'button' }), 'verified', `member ${ID} verified (button)`],
    ['limited', (l) => events.logLimited(l, { discordId: ID, why: 'VPN (NordVPN)' }), 'limited', `member ${ID} limited: VPN (NordVPN)`],
    [
      'alt found',
      (l) => events.logAltFound(l, { altId: ID, mainId: MAIN, confidence: 'certain' }),
      'alt_found',
      `alt found: ${ID} is a certain-confidence alt of ${MAIN}`,
    ],
    ['denied', (l) => events.logDenied(l, { discordId: ID, why: 'certain alt' }), 'denied', `member ${ID} denied: certain alt`],
    ['held', (l) => events.logHeld(l, { discordId: ID }), 'held', `member ${ID} held for staff review`],
    ['appeal filed', (l) => events.logAppealFiled(l, { discordId: ID, appealId: 4 }), 'appeal_filed', `appeal #4 filed by ${ID}`],
    [
      'appeal decided',
      (l) => events.logAppealDecided(l, { discordId: ID, appealId: 4, decision: 'approved', by: 'alice (Discord)' }),
      'appeal_decided',
      `appeal #4 of ${ID} approved by alice (Discord)`,
    ],
    ['lockdown on', (l) => events.logLockdown(l, { on: true, by: 'alice' }), 'lockdown_on', 'lockdown on (alice)'],
    ['lockdown off', (l) => events.logLockdown(l, { on: false, by: 'alice' }), 'lockdown_off', 'lockdown off (alice)'],
    [
      'raid alarm',
      (l) => events.logRaidAlarm(l, { reasons: ['rate', 'young'], lockdownStarted: true }),
      'raid_alarm',
      'raid alarm (rate, young): lockdown started',
    ],
  ])('%s: one plain line at info, tagged with its event', (_name, emit, event, msg) => {
    const log = captured();
    emit(log.logger);
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatchObject({ level: 30, event, msg });
  });

  it('Discord problems name the fix, above info', () => {
    const log = captured();
    events.logDiscordTokenProblem(log.logger, { message: 'Discord rejected the bot token', fix: 'Set DISCORD_BOT_TOKEN' });
    events.logDiscordPermissionProblem(log.logger, { problem: 'the bot cannot manage roles', fix: 'Turn on Manage Roles' });
    expect(log.lines.map((l) => [l.level, l.event, l.fix])).toEqual([
      [50, 'discord_token_problem', 'Set DISCORD_BOT_TOKEN'],
      [40, 'discord_permission_problem', 'Turn on Manage Roles'],
    ]);
  });
});
