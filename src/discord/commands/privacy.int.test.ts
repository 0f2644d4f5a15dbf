import type { APIButtonComponentWithCustomId } from 'discord-api-types/v10';
import { listAudit, verifyAuditChain } from '../../modules/audit';
import { buildNote } from '../../test-support/factories';
import { describeEngines } from '../../test-support/database';
import { buildFingerprint, walkVisitorFlow } from '../../test-support/gatekeeper';
import { countRows, useSlashCommandServer } from '../../test-support/slash-commands';
import { NOTHING_STORED } from './privacy.command';

jest.setTimeout(60_000);

const DAY_MS = 24 * 60 * 60 * 1000;

describeEngines('/privacy show and delete against the emulator', (getDatabase) => {
  // TRUST_PROXY: each scenario signs in from its own address, so scenarios never link to each other
  const server = useSlashCommandServer(getDatabase, { TRUST_PROXY: 'loopback' });

  const query = <T extends Record<string, unknown>>(text: string, params: unknown[] = []) =>
    getDatabase()
      .query<T>(text, params)
      .then((r) => r.rows);

  /**
   * A member with everything a record can have: two attempts (one drained, one whose
   * add-to-server action still holds a sealed access token), a certain alt link to a
   * second account from the same browser, and a staff note.
   */
  async function memberWithEverything(name: string, forwardedFor: string) {
    const device = buildFingerprint(`${name}-laptop`);
    const user = server.kit.emulator.createUser({ username: name });
    const other = server.kit.emulator.createUser({ username: `${name}-other` });
    await walkVisitorFlow(server.handle, { userId: user.id, fingerprint: device, confirmRules: true, forwardedFor });
    await walkVisitorFlow(server.handle, { userId: other.id, fingerprint: device, confirmRules: true, forwardedFor });
    await server.kit.drain();
    await walkVisitorFlow(server.handle, { userId: user.id, fingerprint: device, forwardedFor });
    const [row] = await query<{ id: number }>('select id from members where discord_id = $1', [user.id]);
    await buildNote(getDatabase().db, Number(row!.id), 'talked to them in voice');
    return { user, other, memberId: Number(row!.id) };
  }

  it('shows every field of the record in words, what each attempt holds without any hash value, and when it expires', async () => {
    const { user } = await memberWithEverything('shower', '198.18.10.10');
    const result = await server.kit.run(user.id, 'privacy', {}, 'show');
    expect(result.ephemeral).toBe(true);
    const text = result.text;
    const lines = text.split('\n');
    expect(lines[0]).toBe('**What Gatekeeper stores about you**');
    expect(text).toContain(`Discord ID ${user.id} and username shower`);
    expect(text).toContain('Status: verified; Discord roles: not granted yet; record created by the website');
    expect(text).toContain('Server rules accepted: yes, <t:');
    expect(text).toContain('verifications: 2');
    expect(text).toContain('VPN: never detected');
    expect(text).toContain("Device fingerprint (a hash of your browser's features): stored");
    expect(text).toContain('Network: a keyed hash of your network (/24 or /64), not your IP: stored');
    expect(text).toContain('Alt-status set by staff: no override; marked as an alt of another account: no; links to other accounts: 1');
    expect(text).toContain('Staff notes: 1 (their text is internal to staff)');
    expect(text).not.toContain('talked to them');
    expect(text).toContain('**Verification attempts (2)**');
    const attemptLines = lines.filter((l) => l.startsWith('• <t:'));
    expect(attemptLines).toHaveLength(2);
    for (const line of attemptLines)
      expect(line).toMatch(/ verified · no VPN · hashes: IP ✓ network ✓ fingerprint ✓ browser token ✓ components 9\/9$/);
    expect(text).toContain("• Browser token (random, in your browser's cookie and storage): only a keyed hash, stored");

    // never a hash value: not of the IP, the network, the fingerprint or any component
    const [attempt] = await query<Record<string, string | null>>(
      'select a.* from verification_attempts a join members m on m.id = a.member_id where m.discord_id = $1 limit 1',
      [user.id],
    );
    for (const [column, value] of Object.entries(attempt!)) {
      if (column.endsWith('_hash') && value) expect(text).not.toContain(value.slice(0, 12));
    }

    const [member] = await query<{ last_seen_at: Date }>('select last_seen_at from members where discord_id = $1', [user.id]);
    const expiresAt = Math.floor((new Date(member!.last_seen_at).getTime() + 30 * DAY_MS) / 1000);
    expect(text).toContain(
      `**Expiry:** everything above is deleted automatically <t:${expiresAt}:f> (<t:${expiresAt}:R>), 30 days after you were last seen`,
    );

    const audit = (await listAudit(getDatabase().db, { action: 'privacy.show' })).entries;
    expect(audit.map((e) => [e.actorType, e.actorId, e.actorName, e.targetId])).toEqual([['discord', user.id, null, user.id]]);
    await server.kit.drain();
    expect(server.kit.channelText('logs')).toContain(`<@${user.id}> viewed their stored data with /privacy show`);
  });

  it('tells a member without a record that nothing is stored, and writes nothing', async () => {
    const stranger = server.kit.newMember('stranger');
    const before = await countRows(getDatabase());
    expect((await server.kit.run(stranger.id, 'privacy', {}, 'show')).text).toBe(NOTHING_STORED);
    expect((await server.kit.run(stranger.id, 'privacy', {}, 'delete')).text).toBe(NOTHING_STORED);
    expect(await countRows(getDatabase())).toEqual(before);
  });

  it('deletes every row about the member after confirmation, keeping only the Discord ID in the audit log', async () => {
    const { user, other, memberId } = await memberWithEverything('leaver', '198.18.20.10');
    const pendingTokens = await query('select 1 from discord_outbox where discord_id = $1 and sealed_secret is not null', [user.id]);
    expect(pendingTokens).toHaveLength(1);
    const finished = await query("select 1 from discord_outbox where discord_id = $1 and status = 'done'", [user.id]);
    expect(finished.length).toBeGreaterThan(0);

    const asked = await server.kit.run(user.id, 'privacy', {}, 'delete');
    expect(asked.text).toContain(
      'This permanently deletes every record Gatekeeper holds about you: your verification record, 2 verification attempts, 1 alt link and 1 staff note.',
    );
    const button = (asked.reply!.components![0] as { components: APIButtonComponentWithCustomId[] }).components[0]!;
    expect(button).toMatchObject({ label: 'Delete my data', custom_id: `gatekeeper:privacy-delete:${user.id}`, style: 4 });
    // asking writes nothing yet
    expect(await query('select 1 from members where discord_id = $1', [user.id])).toHaveLength(1);

    const confirmed = await server.kit.emulator.clickButton({
      userId: user.id,
      channelId: server.kit.channelId('verification'),
      messageId: asked.reply!.id,
      customId: button.custom_id,
    });
    expect(confirmed.ephemeral).toBe(true);
    expect(confirmed.text).toBe(
      '🗑️ Done: every record about you has been deleted (2 verification attempts, 1 alt link, 1 staff note). The audit log keeps only your Discord ID and the fact that you deleted your data.',
    );

    expect(await query('select 1 from members where discord_id = $1', [user.id])).toHaveLength(0);
    expect(await query('select 1 from verification_attempts where member_id = $1', [memberId])).toHaveLength(0);
    expect(await query('select 1 from alt_links where main_member_id = $1 or alt_member_id = $1', [memberId])).toHaveLength(0);
    expect(await query('select 1 from admin_notes where member_id = $1', [memberId])).toHaveLength(0);
    expect(
      await query("select 1 from discord_outbox where discord_id = $1 and (sealed_secret is not null or status in ('done', 'failed'))", [
        user.id,
      ]),
    ).toHaveLength(0);
    // the other account no longer counts a link to a deleted one
    expect(await query('select alts_found, is_linked_as_alt from members where discord_id = $1', [other.id])).toEqual([
      { alts_found: 0, is_linked_as_alt: false },
    ]);

    const audit = await query<{
      action: string;
      actor_type: string;
      actor_id: string;
      actor_name: string | null;
      details: Record<string, unknown>;
    }>("select action, actor_type, actor_id, actor_name, details from audit_log where action = 'member.delete' and target_id = $1", [
      user.id,
    ]);
    expect(audit).toEqual([
      {
        action: 'member.delete',
        actor_type: 'discord',
        actor_id: user.id,
        actor_name: null,
        details: { via: 'privacy_command', attempts: 2, links: 1, notes: 1, relinkedMembers: 1 },
      },
    ]);
    expect(JSON.stringify(await query('select * from audit_log'))).not.toContain('leaver');
    expect(await verifyAuditChain(getDatabase().db)).toMatchObject({ verified: true });

    await server.kit.drain();
    expect(server.kit.channelText('logs')).toContain(`<@${user.id}> deleted their verification records with /privacy delete`);

    const twice = await server.kit.emulator.clickButton({
      userId: user.id,
      channelId: server.kit.channelId('verification'),
      messageId: asked.reply!.id,
      customId: button.custom_id,
    });
    expect(twice.text).toBe('There is nothing left to delete: Gatekeeper stores nothing about you.');
    expect((await server.kit.run(user.id, 'privacy', {}, 'show')).text).toBe(NOTHING_STORED);
  });
});
