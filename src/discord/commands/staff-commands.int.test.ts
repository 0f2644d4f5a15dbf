import { PermissionFlagsBits, type ButtonStyle } from 'discord-api-types/v10';
import { listAudit } from '../../modules/audit';
import { buildLink, buildMember } from '../../test-support/factories';
import { describeEngines } from '../../test-support/database';
import { countRows, useSlashCommandServer } from '../../test-support/slash-commands';

jest.setTimeout(60_000);

const STAFF_ONLY = 'Sorry, this command is for server staff only.';

describeEngines('staff slash commands against the emulator', (getDatabase) => {
  const server = useSlashCommandServer(getDatabase);

  const db = () => getDatabase().db;
  const member = async (discordId: string) =>
    (await getDatabase().query<Record<string, unknown>>('select * from members where discord_id = $1', [discordId])).rows[0];
  const auditOf = async (target: string) => (await listAudit(db(), { target })).entries;

  /** A plain member (no Manage Server, no Staff role) runs a staff command: polite refusal, nothing written. */
  async function expectRefused(name: string, options: Record<string, string> = {}, subcommand?: string) {
    const before = await countRows(getDatabase());
    const result = await server.kit.run(server.kit.plainId, name, options, subcommand);
    expect(result.ephemeral).toBe(true);
    expect(result.text).toBe(STAFF_ONLY);
    expect(await countRows(getDatabase())).toEqual(before);
  }

  describe('/panel', () => {
    const panels = (channel: string) =>
      server.handle.discord
        .emulator!.state.messages(server.kit.channelId(channel))
        .filter((m) => m.embeds[0]?.title === 'Server Verification');

    it('posts a fresh panel in the verification channel by default, and in the channel given', async () => {
      const before = panels('verification').length;
      const here = await server.kit.run(server.kit.staffId, 'panel');
      expect(here.ephemeral).toBe(true);
      expect(here.text).toBe(`📌 Posted the verification panel in <#${server.kit.channelId('verification')}>.`);
      expect(panels('verification')).toHaveLength(before + 1);

      const there = await server.kit.run(server.kit.staffId, 'panel', { channel: server.kit.channelId('rules') });
      expect(there.text).toContain(`<#${server.kit.channelId('rules')}>`);
      expect(panels('rules')).toHaveLength(1);
      expect(JSON.stringify(panels('rules')[0]!.components)).toContain('gatekeeper:verify');

      const audit = (await listAudit(db(), { action: 'command.panel' })).entries;
      expect(audit.map((e) => [e.actorType, e.actorId, e.targetId])).toEqual([
        ['discord', server.kit.staffId, server.kit.channelId('rules')],
        ['discord', server.kit.staffId, server.kit.channelId('verification')],
      ]);
      await server.kit.drain();
      expect(server.kit.channelText('logs')).toContain(
        `sandbox-staff posted the verification panel in <#${server.kit.channelId('rules')}>`,
      );
    });

    it('is refused to a plain member', async () => {
      const before = panels('verification').length;
      await expectRefused('panel');
      expect(panels('verification')).toHaveLength(before);
    });
  });

  describe('/lookup', () => {
    it('summarises status badges, alts by confidence with method, VPN use, and links to the detail page', async () => {
      const target = server.kit.newMember('lookedup');
      const subject = await buildMember(db(), {
        discordId: target.id,
        username: 'lookedup',
        altsFound: 2,
        usedVpn: true,
        vpnAttempts: 2,
        vpnProvider: 'NordVPN',
        verificationCount: 3,
      });
      const certain = await buildMember(db(), { username: 'certainalt' });
      const medium = await buildMember(db(), { username: 'mediumalt' });
      const possible = await buildMember(db(), { username: 'possiblealt' });
      await buildLink(db(), subject.id, certain.id, {
        confidence: 'certain',
        detectionMethod: 'both',
        evidence: { ipMatch: true, fingerprintMatch: true, fingerprintShared: 0 },
      });
      await buildLink(db(), subject.id, medium.id, {
        confidence: 'medium',
        detectionMethod: 'fingerprint',
        evidence: { fingerprintMatch: true, fingerprintShared: 2 },
      });
      await buildLink(db(), possible.id, subject.id, {
        confidence: 'possible',
        detectionMethod: 'ip',
        evidence: { ipMatch: true, addressShared: 3 },
      });

      const result = await server.kit.run(server.kit.staffId, 'lookup', { user: target.id });
      expect(result.ephemeral).toBe(true);
      const lines = result.text.split('\n');
      expect(lines[0]).toBe(`**lookedup** <@${target.id}> · ID ${target.id}`);
      // only certain and medium links count as alts; a possible link is shared context, listed without a count
      expect(lines).toContain('**Status:** Verified · 2 Alts · VPN (2) · 3x');
      expect(lines).toContain('**Alt-status override:** no override');
      expect(lines).toContain('**Alts (2):**');
      expect(lines).toContain(
        `• Certain (1): <@${certain.discordId}> certainalt: same device model, shown by no other member; same internet address (certain)`,
      );
      expect(lines).toContain(`• Medium (1): <@${medium.discordId}> mediumalt: same device model as 2 other members (medium)`);
      expect(lines).toContain(
        `**Shares a device profile or network with:** <@${possible.discordId}> possiblealt: same internet address as 3 other members (weak, not counted)`,
      );
      expect(lines).toContain('**VPN attempts:** 2 (provider: NordVPN)');
      expect(lines.some((l) => l.startsWith('**Verifications:** 3 · last <t:'))).toBe(true);

      const link = result.reply!.components![0]! as { components: { style: ButtonStyle; url?: string; label?: string }[] };
      expect(link.components[0]).toMatchObject({ label: 'Open in dashboard', url: `${server.handle.url}/admin/user/${target.id}` });

      const audit = await auditOf(target.id);
      expect(audit.map((e) => [e.action, e.actorType, e.actorId, e.actorName])).toEqual([
        ['command.lookup', 'discord', server.kit.staffId, 'sandbox-staff'],
      ]);
      await server.kit.drain();
      expect(server.kit.channelText('logs')).toContain(`sandbox-staff looked up <@${target.id}>`);
    });

    it('is refused to a plain member', async () => {
      const target = server.kit.newMember('notlookedup');
      await buildMember(db(), { discordId: target.id });
      await expectRefused('lookup', { user: target.id });
    });

    it('accepts a member with the configured Staff role even without Manage Server', async () => {
      const staffRole = server.handle.discord.emulator!.state.roleByName('Staff')!;
      const permissions = BigInt(staffRole.permissions);
      server.handle.discord.emulator!.setRolePermissions('Staff', 0n);
      try {
        const helper = server.kit.newMember('rolehelper', ['Staff']);
        expect(server.handle.discord.emulator!.state.memberPermissions(helper.id) & PermissionFlagsBits.ManageGuild).toBe(0n);
        const target = server.kit.newMember('rolelookup');
        await buildMember(db(), { discordId: target.id, username: 'rolelookup' });
        const result = await server.kit.run(helper.id, 'lookup', { user: target.id });
        expect(result.text).toContain('**rolelookup**');
      } finally {
        server.handle.discord.emulator!.setRolePermissions('Staff', permissions);
      }
    });
  });

  describe('/manverify and /unverify', () => {
    it('verifies through the outbox with the Discord staff member as audit actor, then takes it back', async () => {
      const target = server.kit.newMember('byhand', ['Unverified', 'Limited Access']);
      await buildMember(db(), { discordId: target.id, username: 'byhand', status: 'limited_access', guildAccess: 'limited' });

      const verified = await server.kit.run(server.kit.staffId, 'manverify', { user: target.id });
      expect(verified.text).toBe(
        `✅ <@${target.id}> (byhand) is now verified: the Verified role is being granted (Unverified and Limited Access removed).`,
      );
      expect(await member(target.id)).toMatchObject({ status: 'verified', guild_access: 'verified' });
      await server.kit.drain();
      expect(server.kit.roleNames(target.id)).toEqual(['Verified']);

      const again = await server.kit.run(server.kit.staffId, 'manverify', { user: target.id });
      expect(again.text).toBe(`<@${target.id}> (byhand) is already verified: nothing changed.`);

      const unverified = await server.kit.run(server.kit.staffId, 'unverify', { user: target.id });
      expect(unverified.text).toBe(
        `<@${target.id}> (byhand) is no longer verified: the Verified and Limited Access roles are being removed and Unverified given back. They must accept the rules on the website again.`,
      );
      expect(await member(target.id)).toMatchObject({ guild_access: 'pending', rules_confirmed: false, rules_confirmed_at: null });
      await server.kit.drain();
      expect(server.kit.roleNames(target.id)).toEqual(['Unverified']);

      const twice = await server.kit.run(server.kit.staffId, 'unverify', { user: target.id });
      expect(twice.text).toBe(`<@${target.id}> (byhand) is not verified: there is nothing to take away.`);

      const audit = await auditOf(target.id);
      expect(audit.map((e) => [e.action, e.actorType, e.actorId, e.actorName])).toEqual([
        ['member.unverify', 'discord', server.kit.staffId, 'sandbox-staff'],
        ['member.manual_verify', 'discord', server.kit.staffId, 'sandbox-staff'],
      ]);
      const logs = server.kit.channelText('logs');
      expect(logs).toContain(`<@${target.id}> manually verified by staff member sandbox-staff (Discord)`);
      expect(logs).toContain(`<@${target.id}> unverified by staff member sandbox-staff (Discord)`);
    });

    it('are refused to a plain member', async () => {
      const target = server.kit.newMember('notbyhand');
      await buildMember(db(), { discordId: target.id, guildAccess: 'verified' });
      await expectRefused('manverify', { user: target.id });
      await expectRefused('unverify', { user: target.id });
    });
  });

  describe('/alt-status', () => {
    it('sets, changes and clears the override, refusing a change to the same status', async () => {
      const target = server.kit.newMember('overridden');
      await buildMember(db(), { discordId: target.id, username: 'overridden' });

      expect((await server.kit.run(server.kit.staffId, 'alt-status', { user: target.id, status: 'suspected' })).text).toBe(
        `Alt status of <@${target.id}> (overridden) set to "Suspected Alt".`,
      );
      expect((await member(target.id))!.manual_alt_status).toBe('suspected_alt');
      expect((await server.kit.run(server.kit.staffId, 'alt-status', { user: target.id, status: 'certain' })).text).toContain(
        'set to "Certain Alt"',
      );
      expect((await member(target.id))!.manual_alt_status).toBe('certain_alt');
      expect((await server.kit.run(server.kit.staffId, 'alt-status', { user: target.id, status: 'certain' })).text).toBe(
        `<@${target.id}> (overridden) already has the alt status "Certain Alt": nothing changed.`,
      );
      expect((await server.kit.run(server.kit.staffId, 'alt-status', { user: target.id, status: 'none' })).text).toContain(
        'set to "no override"',
      );
      expect((await member(target.id))!.manual_alt_status).toBeNull();

      const audit = await auditOf(target.id);
      expect(audit.map((e) => [e.action, e.actorType, e.details])).toEqual([
        ['member.alt_status', 'discord', { from: 'certain_alt', to: null }],
        ['member.alt_status', 'discord', { from: 'suspected_alt', to: 'certain_alt' }],
        ['member.alt_status', 'discord', { from: null, to: 'suspected_alt' }],
      ]);
      await server.kit.drain();
      expect(server.kit.channelText('logs')).toContain(`set the alt status of <@${target.id}> to Suspected Alt`);
    });

    it('is refused to a plain member', async () => {
      const target = server.kit.newMember('notoverridden');
      await buildMember(db(), { discordId: target.id });
      await expectRefused('alt-status', { user: target.id, status: 'certain' });
    });
  });

  describe('/note', () => {
    it('saves a note authored by the Discord staff member, keeping its text out of the audit log and logs channel', async () => {
      const target = server.kit.newMember('noted');
      await buildMember(db(), { discordId: target.id, username: 'noted' });
      const result = await server.kit.run(server.kit.staffId, 'note', {
        user: target.id,
        text: '  Same household as @someone, checked by voice  ',
      });
      expect(result.text).toBe(`📝 Note saved on <@${target.id}> (noted). Staff see it on the detail page.`);
      const notes = (
        await getDatabase().query<{ note: string; author_name: string; author_staff_id: number | null }>(
          'select n.note, n.author_name, n.author_staff_id from admin_notes n join members m on m.id = n.member_id where m.discord_id = $1',
          [target.id],
        )
      ).rows;
      expect(notes).toEqual([
        { note: 'Same household as @someone, checked by voice', author_name: 'sandbox-staff (Discord)', author_staff_id: null },
      ]);
      const audit = await auditOf(target.id);
      expect(audit.map((e) => [e.action, e.actorType, e.actorId])).toEqual([['member.note_add', 'discord', server.kit.staffId]]);
      expect(JSON.stringify(audit)).not.toContain('household');
      await server.kit.drain();
      expect(server.kit.channelText('logs')).toContain(`sandbox-staff (Discord) added a note to <@${target.id}>`);
      expect(server.kit.channelText('logs')).not.toContain('household');
    });

    it('is refused to a plain member', async () => {
      const target = server.kit.newMember('notnoted');
      await buildMember(db(), { discordId: target.id });
      await expectRefused('note', { user: target.id, text: 'hello' });
    });
  });

  describe('/appeals', () => {
    it('lists the open appeals oldest first, with a link to the queue, and never quotes the visitor', async () => {
      const empty = await server.kit.run(server.kit.staffId, 'appeals');
      expect(empty.ephemeral).toBe(true);
      expect(empty.text).toContain('No open appeals.');
      const older = await buildMember(db(), { username: 'appealer-one', status: 'limited_access' });
      const newer = await buildMember(db(), { username: 'appealer-two', manualAltStatus: 'certain_alt' });
      await getDatabase().query(
        `insert into appeals (member_id, message, standing, created_at) values ($1, 'private words', 'limited', now() - interval '1 hour'), ($2, 'more words', 'certain_alt', now())`,
        [older.id, newer.id],
      );
      const result = await server.kit.run(server.kit.staffId, 'appeals');
      expect(result.text).toContain('📨 2 open appeals, oldest first:');
      expect(result.text.indexOf('appealer-one')).toBeLessThan(result.text.indexOf('appealer-two'));
      expect(result.text).toContain('Limited Access');
      expect(result.text).toContain('Certain Alt');
      expect(result.text).not.toContain('private words');
      expect(JSON.stringify(result)).toContain('/admin/appeals');
      const audit = (await listAudit(db(), { action: 'command.appeals' })).entries;
      expect(audit.map((e) => [e.actorType, e.actorId])).toEqual([
        ['discord', server.kit.staffId],
        ['discord', server.kit.staffId],
      ]);
    });

    it('is refused to a plain member', async () => {
      await expectRefused('appeals');
    });
  });

  it('answers every command within the acknowledgement window', async () => {
    const target = server.kit.newMember('quick');
    await buildMember(db(), { discordId: target.id });
    const result = await server.kit.run(server.kit.staffId, 'lookup', { user: target.id });
    expect(result.acknowledged).toBe(true);
    expect(result.failed).toBe(false);
  });
});
