import { eq } from 'drizzle-orm';
import request from 'supertest';
import { members, verificationAttempts } from '../../db/schema';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { buildFingerprint, SHORT_DISCORD_WINDOWS, startTestGatekeeper, walkVisitorFlow } from '../../test-support/gatekeeper';
import type { GatekeeperHandle } from '../../server';
import { listAudit } from '../audit';
import { readStatistics } from '../statistics';

jest.setTimeout(60_000);

describeEngines('visitor flow end to end (HTTP + emulator + outbox)', (getDatabase) => {
  let handle: GatekeeperHandle;
  beforeAll(async () => {
    await resetDatabase(getDatabase());
    // joins, role changes and #logs lines of several visitors on one emulator: what is checked is what they do
    ({ handle } = await startTestGatekeeper(getDatabase(), {}, SHORT_DISCORD_WINDOWS));
  });
  afterAll(async () => handle?.stop());

  const emulator = () => handle.discord.emulator!;
  const rolesOf = (userId: string) => {
    const member = emulator().state.guild.members.get(userId);
    return (member?.roles ?? []).map((id: string) => emulator().state.guild.roles.get(id)?.name);
  };
  const logLinesOf = async (discordId: string) =>
    (
      await getDatabase().query<{ text: string }>(
        `select payload->>'text' as text from discord_outbox where kind = 'log_message' and discord_id = $1 order by id`,
        [discordId],
      )
    ).rows.map((r) => r.text);
  const verificationOutcomes = async (discordId: string) =>
    (await listAudit(getDatabase().db, { target: discordId })).entries
      .filter((e) => e.action === 'verification.completed')
      .map((e) => ({
        outcome: (e.details as Record<string, unknown>).outcome,
        vpnOutcome: (e.details as Record<string, unknown>).vpnOutcome,
      }));
  const verifyButton = () => emulator().findButton(emulator().guild.channelId('verification'), 'Complete Verification!')!;
  const click = (userId: string) =>
    emulator().clickButton({
      userId,
      channelId: emulator().guild.channelId('verification'),
      messageId: verifyButton().messageId,
      customId: verifyButton().customId,
    });

  it('verifies a new visitor: member, attempt, guild join with Unverified, then Verified at the button', async () => {
    const user = emulator().createUser({ username: 'alice' });
    const { agent, landedOn } = await walkVisitorFlow(handle, { userId: user.id, confirmRules: true });
    expect(landedOn).toBe('/rules');

    const { body: vpn } = await agent.get('/api/verification/vpn-status').expect(200);
    expect(vpn).toEqual({ vpnDetected: false, vpnProvider: null, standing: 'verified' });
    const { body: links } = await agent.get('/api/discord/verification-channel').expect(200);
    expect(links.appUrl).toMatch(/^discord:\/\/-\/channels\/\d+\/\d+$/);
    expect(links.webUrl).toContain('/sandbox');

    const [member] = await getDatabase().db.select().from(members).where(eq(members.discordId, user.id));
    expect(member).toMatchObject({ username: 'alice', status: 'verified', rulesConfirmed: true, verificationCount: 1, usedVpn: false });
    const attempts = await getDatabase().db.select().from(verificationAttempts).where(eq(verificationAttempts.memberId, member!.id));
    expect(attempts).toHaveLength(1);
    expect(attempts[0]!.ipHash).toMatch(/^[0-9a-f]{64}$/);
    expect(attempts[0]!.endedAs).toBeNull();
    // the consent's stock-phone verdict, kept for re-scoring (the new-server prior)
    expect(typeof attempts[0]!.stockProfile).toBe('boolean');

    await handle.services.outboxWorker.drain();
    expect(rolesOf(user.id)).toEqual(['Unverified']);

    const reply = await click(user.id);
    expect(JSON.stringify(reply)).toContain("You're verified");
    await handle.services.outboxWorker.drain();
    expect(rolesOf(user.id)).toEqual(['Verified']);
    const [after] = await getDatabase().db.select().from(members).where(eq(members.discordId, user.id));
    expect(after!.guildAccess).toBe('verified');

    const audit = await listAudit(getDatabase().db, { target: user.id });
    expect(audit.entries.map((e) => e.action)).toEqual(['button.verified', 'rules.confirmed', 'verification.completed']);
  });

  it('gives a VPN visitor Limited Access, keeping only ID and username', async () => {
    const user = emulator().createUser({ username: 'vpnuser', onVpn: true });
    const { agent } = await walkVisitorFlow(handle, { userId: user.id, confirmRules: true });
    const { body: vpn } = await agent.get('/api/verification/vpn-status').expect(200);
    expect(vpn).toEqual({ vpnDetected: true, vpnProvider: 'Sandbox VPN', standing: 'limited' });

    const [member] = await getDatabase().db.select().from(members).where(eq(members.discordId, user.id));
    expect(member).toMatchObject({
      status: 'limited_access',
      usedVpn: true,
      vpnAttempts: 1,
      avatarUrl: null,
      fingerprintHash: null,
      networkHash: null,
    });
    const [attempt] = await getDatabase().db.select().from(verificationAttempts).where(eq(verificationAttempts.memberId, member!.id));
    expect(attempt).toMatchObject({
      ipHash: null,
      networkHash: null,
      fingerprintHash: null,
      canvasHash: null,
      stockProfile: null,
      vpnVerdict: 'vpn',
      outcome: 'limited_access',
    });

    await handle.services.outboxWorker.drain();
    await click(user.id);
    await handle.services.outboxWorker.drain();
    expect(rolesOf(user.id)).toEqual(['Limited Access']);
  });

  it('links a second account from the same browser as a certain alt and denies it at the button', async () => {
    const device = buildFingerprint('shared-laptop');
    const main = emulator().createUser({ username: 'mainacct' });
    const alt = emulator().createUser({ username: 'altacct' });
    await walkVisitorFlow(handle, { userId: main.id, fingerprint: device, confirmRules: true });
    await walkVisitorFlow(handle, { userId: alt.id, fingerprint: device, confirmRules: true });

    const [altRow] = await getDatabase().db.select().from(members).where(eq(members.discordId, alt.id));
    const [mainRow] = await getDatabase().db.select().from(members).where(eq(members.discordId, main.id));
    expect(altRow).toMatchObject({ isLinkedAsAlt: true });
    expect(altRow!.altsFound).toBeGreaterThanOrEqual(1);
    expect(mainRow).toMatchObject({ isLinkedAsAlt: false });
    // the alt's verification ended denied (the statistics count it as denied_alt); the main's did not
    const endings = async (memberId: number) =>
      (await getDatabase().db.select().from(verificationAttempts).where(eq(verificationAttempts.memberId, memberId))).map((a) => a.endedAs);
    expect(await endings(altRow!.id)).toEqual(['denied_alt']);
    expect(await endings(mainRow!.id)).toEqual([null]);
    // the logs channel and the audit log tell the alt's story as a denial, never as a success
    const altLines = await logLinesOf(alt.id);
    expect(altLines[0]).toBe(`⛔ <@${alt.id}> was denied: certain alt of <@${main.id}>.`);
    expect(altLines.filter((l) => !l.startsWith('🔎'))).toEqual([altLines[0]]);
    expect(await verificationOutcomes(alt.id)).toEqual([{ outcome: 'denied_alt', vpnOutcome: 'verified' }]);
    expect(await verificationOutcomes(main.id)).toEqual([{ outcome: 'verified', vpnOutcome: 'verified' }]);

    await handle.services.outboxWorker.drain();
    const reply = await click(alt.id);
    expect(JSON.stringify(reply)).toContain('Verification denied');
    // the denial offers the appeal
    expect(JSON.stringify(reply)).toContain('Ask staff to review');
    expect(JSON.stringify(reply)).toContain('/appeal');
    await handle.services.outboxWorker.drain();
    expect(rolesOf(alt.id)).toEqual(['Unverified']);
  });

  it('counts a re-verification of the same account without linking it to itself; one an admission rule holds ends pending', async () => {
    const user = emulator().createUser({ username: 'returning' });
    const device = buildFingerprint('returning-device');
    await walkVisitorFlow(handle, { userId: user.id, fingerprint: device });
    // the account-age gate holds the second verification for review (its attempt says so, for the statistics)
    const { settings } = handle.services;
    const owner = { type: 'staff' as const, id: '1', name: 'Owner' };
    const before = settings.snapshot();
    await settings.update(owner, { accountAgeMinDays: 3650, accountAgeAction: 'review' });
    try {
      await walkVisitorFlow(handle, { userId: user.id, fingerprint: device });
    } finally {
      await settings.update(owner, { accountAgeMinDays: before.accountAgeMinDays, accountAgeAction: before.accountAgeAction });
    }
    const [row] = await getDatabase().db.select().from(members).where(eq(members.discordId, user.id));
    expect(row!.verificationCount).toBe(2);
    expect(row).toMatchObject({ gateAction: 'review', isLinkedAsAlt: false });
    const { rows } = await getDatabase().query<{ n: number }>(
      'select count(*)::int as n from alt_links where main_member_id = $1 and alt_member_id = $1',
      [row!.id],
    );
    expect(rows[0]!.n).toBe(0);
    const attempts = await getDatabase().query<{ ended_as: string | null }>(
      'select ended_as from verification_attempts where member_id = $1 order by id',
      [row!.id],
    );
    expect(attempts.rows).toEqual([{ ended_as: null }, { ended_as: 'pending' }]);
    // the held verification is the rule's line, not a success
    const lines = (await logLinesOf(user.id)).filter((l) => !l.startsWith('🔎'));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(`✅ <@${user.id}> completed website verification.`);
    expect(lines[1]).toMatch(new RegExp(`^⏸️ <@${user.id}> was held for staff review`));
    expect(await verificationOutcomes(user.id)).toEqual([
      { outcome: 'pending', vpnOutcome: 'verified' },
      { outcome: 'verified', vpnOutcome: 'verified' },
    ]);
  });

  it('counts outcomes, alt detections, VPN checks and interactions in /metrics', async () => {
    const res = await request(handle.url).get('/metrics').expect(200);
    expect(res.text).toMatch(/gatekeeper_verifications_total\{outcome="verified"\} [1-9]/);
    expect(res.text).toMatch(/gatekeeper_verifications_total\{outcome="limited_access"\} [1-9]/);
    expect(res.text).toMatch(/gatekeeper_alt_detections_total\{confidence="certain"\} [1-9]/);
    expect(res.text).toMatch(/gatekeeper_vpn_checks_total\{verdict="vpn",source="proxycheck"\} [1-9]/);
    expect(res.text).toMatch(/gatekeeper_interactions_total\{result="handled"\} [1-9]/);
    expect(res.text).toMatch(/gatekeeper_outbox_depth\{status="failed"\} \d/);
  });

  it('asks an unknown member to verify on the website first', async () => {
    const stranger = emulator().createUser({ username: 'stranger' });
    emulator().addGuildMember(stranger.id);
    const reply = await click(stranger.id);
    expect(JSON.stringify(reply)).toContain("haven't verified on the website");
  });
});

describeEngines('visitor flow refused by the VPN-check failure policy', (getDatabase) => {
  let handle: GatekeeperHandle;
  beforeAll(async () => {
    await resetDatabase(getDatabase());
    ({ handle } = await startTestGatekeeper(getDatabase(), { TRUST_PROXY: 'loopback', VPN_CHECK_FAILURE: 'deny' }));
    handle.discord.proxycheck!.setFault('error'); // the sandbox's proxycheck.io answers errors
  });
  afterAll(async () => handle?.stop());

  it('records no member or attempt, audits the refusal, and the statistics count it as denied', async () => {
    const user = handle.discord.emulator!.createUser({ username: 'refused' });
    const { landedOn } = await walkVisitorFlow(handle, { userId: user.id, forwardedFor: '81.2.69.160' });
    expect(landedOn).not.toBe('/rules');
    expect(await getDatabase().db.select().from(members).where(eq(members.discordId, user.id))).toEqual([]);
    const audit = await listAudit(getDatabase().db, { target: user.id });
    expect(audit.entries.map((e) => e.action)).toEqual(['verification.denied']);

    const stats = await readStatistics(getDatabase().db, new Date(), 7);
    expect(stats.verificationsPerDay).toEqual([{ day: new Date().toISOString().slice(0, 10), counts: { denied: 1 } }]);
  });
});
