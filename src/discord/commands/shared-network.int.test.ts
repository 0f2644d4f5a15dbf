import { listAudit } from '../../modules/audit';
import { describeEngines } from '../../test-support/database';
import { buildFingerprint, walkVisitorFlow } from '../../test-support/gatekeeper';
import { countRows, useSlashCommandServer } from '../../test-support/slash-commands';

jest.setTimeout(90_000);

describeEngines('/shared-network against the emulator', (getDatabase) => {
  // TRUST_PROXY: each visitor picks the address it signs in from
  const server = useSlashCommandServer(getDatabase, { TRUST_PROXY: 'loopback' });

  const query = <T extends Record<string, unknown>>(text: string, params: unknown[] = []) =>
    getDatabase()
      .query<T>(text, params)
      .then((r) => r.rows);

  /** A device of its own: no high-entropy component in common with any other, and its own screen (the rarity rule rates shared machine settings on one address as medium). */
  const ownDevice = (name: string) =>
    buildFingerprint(name, { fonts: `Font-${name}`, screen: `${1000 + name.length * 37}x${700 + name.charCodeAt(name.length - 1)}x24` });

  /** Verifies a new account from `ip` on its own device; returns its Discord user. */
  async function verifyFrom(name: string, ip: string) {
    const user = server.kit.emulator.createUser({ username: name });
    await walkVisitorFlow(server.handle, { userId: user.id, fingerprint: ownDevice(name), confirmRules: true, forwardedFor: ip });
    return user;
  }

  /** The links of an account as `confidence/method` with the other account's username. */
  async function linksOf(discordId: string) {
    const rows = await query<{ other: string; confidence: string; detection_method: string }>(
      `select o.username as other, l.confidence, l.detection_method from alt_links l
         join members m on m.discord_id = $1
         join members o on o.id = case when l.main_member_id = m.id then l.alt_member_id else l.main_member_id end
       where l.main_member_id = m.id or l.alt_member_id = m.id order by o.username`,
      [discordId],
    );
    return rows.map((r) => `${r.other}:${r.confidence}/${r.detection_method}`);
  }

  it('stops IP-only matches from counting at the next verification once the network is marked, and counts them again after removal', async () => {
    const ip = '192.0.2.41';
    const first = await verifyFrom('dorm-first', ip);
    const second = await verifyFrom('dorm-second', ip);
    // one address, different devices: a possible alt by IP
    expect(await linksOf(second.id)).toEqual(['dorm-first:possible/ip']);

    const marked = await server.kit.run(server.kit.staffId, 'shared-network', { user: first.id, label: 'Dorm B' }, 'mark');
    expect(marked.text).toBe(
      `🏠 The network of <@${first.id}> (dorm-first) is now marked as shared ("Dorm B"). From the next verification on, IP and network matches there no longer count as alt evidence (2 member records on it; links found earlier stay).`,
    );
    expect(await query('select label, marked_by from shared_networks')).toEqual([
      { label: 'Dorm B', marked_by: 'sandbox-staff (Discord)' },
    ]);

    const third = await verifyFrom('dorm-third', ip);
    expect(await linksOf(third.id)).toEqual([]);
    // a device match still counts on a shared network, as evidence: possible (it was medium until the
    // badge tier kept only rules right nine times in ten in P8; the same fingerprint without the address is 24 alts to 3 strangers)
    const sameDevice = server.kit.emulator.createUser({ username: 'dorm-twin' });
    await walkVisitorFlow(server.handle, {
      userId: sameDevice.id,
      fingerprint: ownDevice('dorm-third'),
      confirmRules: true,
      forwardedFor: ip,
    });
    expect(await linksOf(sameDevice.id)).toEqual(['dorm-third:possible/fingerprint']);

    const listed = await server.kit.run(server.kit.staffId, 'shared-network', {}, 'list');
    const [network] = await query<{ network_hash: string }>('select network_hash from shared_networks');
    expect(listed.text.split('\n')[0]).toBe('**Shared networks (1)**: IP and network matches there do not count.');
    expect(listed.text).toContain(
      `• \`${network!.network_hash.slice(0, 12)}\` "Dorm B" · 4 member records · marked by sandbox-staff (Discord) <t:`,
    );
    expect(listed.text).not.toContain(network!.network_hash);

    const removed = await server.kit.run(server.kit.staffId, 'shared-network', { user: second.id }, 'remove');
    expect(removed.text).toBe(
      `The network of <@${second.id}> (dorm-second) ("Dorm B") is no longer marked as shared: IP and network matches there count again from the next verification.`,
    );
    const fourth = await verifyFrom('dorm-fourth', ip);
    expect(await linksOf(fourth.id)).toEqual([
      'dorm-first:possible/ip',
      'dorm-second:possible/ip',
      'dorm-third:possible/ip',
      'dorm-twin:possible/ip',
    ]);

    const audit = (await listAudit(getDatabase().db, { actor: server.kit.staffId })).entries.filter((e) =>
      e.action.includes('shared_network'),
    );
    expect(audit.map((e) => [e.action, e.actorType, e.targetId, e.details])).toEqual([
      ['shared_network.unmark', 'discord', second.id, { members: 4 }],
      ['command.shared_network_list', 'discord', null, { networks: 1 }],
      ['shared_network.mark', 'discord', first.id, { labelled: true, members: 2 }],
    ]);
    expect(JSON.stringify(audit)).not.toContain('Dorm B');
    await server.kit.drain();
    const logs = server.kit.channelText('logs');
    expect(logs).toContain(`marked the network of <@${first.id}> as shared ("Dorm B")`);
    expect(logs).toContain('sandbox-staff listed the shared networks');
    expect(logs).toContain(`removed the shared marking of the network of <@${second.id}>`);
  });

  it('lists nothing when no network is marked', async () => {
    expect((await server.kit.run(server.kit.staffId, 'shared-network', {}, 'list')).text).toBe(
      'No network is marked as shared. Mark one with `/shared-network mark`.',
    );
  });

  it('refuses politely and writes nothing: already marked, not marked, no network on record, label too long', async () => {
    const member = await verifyFrom('lonely', '192.0.2.77');
    const vpnUser = server.kit.emulator.createUser({ username: 'tunnel', onVpn: true });
    await walkVisitorFlow(server.handle, { userId: vpnUser.id, confirmRules: true });

    let before = await countRows(getDatabase());
    expect((await server.kit.run(server.kit.staffId, 'shared-network', { user: member.id }, 'remove')).text).toBe(
      `The network of <@${member.id}> (lonely) is not marked as shared: nothing changed.`,
    );
    expect((await server.kit.run(server.kit.staffId, 'shared-network', { user: vpnUser.id }, 'mark')).text).toBe(
      `<@${vpnUser.id}> (tunnel) has no network on record (Limited Access records keep none), so there is no network to mark.`,
    );
    expect((await server.kit.run(server.kit.staffId, 'shared-network', { user: member.id, label: 'x'.repeat(101) }, 'mark')).text).toBe(
      'Labels can be at most 100 characters (this one has 101): nothing was marked.',
    );
    expect(await countRows(getDatabase())).toEqual(before);

    expect((await server.kit.run(server.kit.staffId, 'shared-network', { user: member.id }, 'mark')).text).toContain(
      'is now marked as shared. From the next verification on',
    );
    before = await countRows(getDatabase());
    expect((await server.kit.run(server.kit.staffId, 'shared-network', { user: member.id, label: 'again' }, 'mark')).text).toBe(
      `The network of <@${member.id}> (lonely) is already marked as shared: nothing changed.`,
    );
    expect(await countRows(getDatabase())).toEqual(before);
    await server.kit.run(server.kit.staffId, 'shared-network', { user: member.id }, 'remove');
  });

  it('is refused to a plain member, for every subcommand', async () => {
    const member = await verifyFrom('bystander', '192.0.2.90');
    const before = await countRows(getDatabase());
    for (const [subcommand, options] of [
      ['mark', { user: member.id }],
      ['list', {}],
      ['remove', { user: member.id }],
    ] as const) {
      expect((await server.kit.run(server.kit.plainId, 'shared-network', options, subcommand)).text).toBe(
        'Sorry, this command is for server staff only.',
      );
    }
    expect(await countRows(getDatabase())).toEqual(before);
  });
});
