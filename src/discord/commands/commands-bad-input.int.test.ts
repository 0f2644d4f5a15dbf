import { buildMember } from '../../test-support/factories';
import { describeEngines } from '../../test-support/database';
import { countRows, useSlashCommandServer } from '../../test-support/slash-commands';

jest.setTimeout(60_000);

/** Every command that takes a member, with the other options it needs. */
const TARGETED: { name: string; subcommand?: string; options: Record<string, string> }[] = [
  { name: 'lookup', options: {} },
  { name: 'manverify', options: {} },
  { name: 'unverify', options: {} },
  { name: 'alt-status', options: { status: 'certain' } },
  { name: 'note', options: { text: 'a note' } },
  { name: 'shared-network', subcommand: 'mark', options: { label: 'school' } },
  { name: 'shared-network', subcommand: 'remove', options: {} },
];

describeEngines('slash commands with bad input write nothing', (getDatabase) => {
  const server = useSlashCommandServer(getDatabase);

  async function expectNothingWritten(run: () => Promise<{ text: string; ephemeral: boolean }>, reply: string) {
    const before = await countRows(getDatabase());
    const result = await run();
    expect(result.ephemeral).toBe(true);
    expect(result.text).toBe(reply);
    await server.kit.drain();
    expect(await countRows(getDatabase())).toEqual(before);
  }

  describe.each(TARGETED.map((c) => [`/${c.name}${c.subcommand ? ` ${c.subcommand}` : ''}`, c] as const))(
    '%s',
    (_title, { name, subcommand, options }) => {
      it('refuses a bot as target', async () => {
        const bot = server.kit.emulator.createUser({ username: `helper-bot-${name}`, bot: true });
        await expectNothingWritten(
          () => server.kit.run(server.kit.staffId, name, { user: bot.id, ...options }, subcommand),
          'Bots cannot be verified.',
        );
        await expectNothingWritten(
          () => server.kit.run(server.kit.staffId, name, { user: server.kit.emulator.application.botUserId, ...options }, subcommand),
          'Bots cannot be verified.',
        );
      });

      it('answers "no verification record" for a member without one', async () => {
        const member = server.kit.newMember(`norecord-${name}`);
        await expectNothingWritten(
          () => server.kit.run(server.kit.staffId, name, { user: member.id, ...options }, subcommand),
          `No verification record for <@${member.id}> (norecord-${name}).`,
        );
      });

      it('answers "no verification record" for a Discord user who is not on the server', async () => {
        const stranger = server.kit.emulator.createUser({ username: `stranger-${name}` });
        await expectNothingWritten(
          () => server.kit.run(server.kit.staffId, name, { user: stranger.id, ...options }, subcommand),
          `No verification record for <@${stranger.id}> (stranger-${name}).`,
        );
      });
    },
  );

  it('refuses a note that is too long or empty', async () => {
    const target = server.kit.newMember('longwinded');
    await buildMember(getDatabase().db, { discordId: target.id });
    await expectNothingWritten(
      () => server.kit.run(server.kit.staffId, 'note', { user: target.id, text: 'x'.repeat(1001) }),
      'Notes can be at most 1000 characters (this one has 1001): nothing was saved.',
    );
    await expectNothingWritten(
      () => server.kit.run(server.kit.staffId, 'note', { user: target.id, text: '   ' }),
      'The note is empty: nothing was saved.',
    );
  });

  it('refuses a shared-network label that is too long', async () => {
    const target = server.kit.newMember('labelled');
    await buildMember(getDatabase().db, { discordId: target.id, networkHash: 'a'.repeat(64) });
    await expectNothingWritten(
      () => server.kit.run(server.kit.staffId, 'shared-network', { user: target.id, label: 'y'.repeat(150) }, 'mark'),
      'Labels can be at most 100 characters (this one has 150): nothing was marked.',
    );
  });
});
