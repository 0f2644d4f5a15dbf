import { Writable } from 'node:stream';
import request from 'supertest';
import { createLogger } from '../logger';
import type { GatekeeperHandle } from '../server';
import { describeEngines, resetDatabase } from '../test-support/database';
import { walkVisitorFlow } from '../test-support/gatekeeper';
import { listTables, OWNER, ownerCookie, startSecurityGatekeeper } from '../test-support/security-kit';

/**
 * IP addresses are never stored. After everything a visitor and staff do
 * from distinctive addresses (a whole verification over IPv4 and IPv6, the button in
 * Discord, a VPN visitor, failed and successful staff logins, dashboard reads), no row of
 * any table, no log line at debug level, and nothing the bot sent to Discord may contain
 * the address, its /24 network, or a common re-spelling of it.
 */

jest.setTimeout(90_000);

// distinctive: never produced by chance, residential in the proxycheck emulator (so verified)
const VISITOR_V4 = '192.0.2.187';
const VISITOR_V6 = '2001:db8:4a7f:9c21::187';
const STAFF_V4 = '192.0.2.233';
const VPN_V4 = '198.51.100.77';

/** Every spelling of an address that would give it away. */
function spellings(ip: string): string[] {
  if (ip.includes(':')) {
    const groups = ip.split('::')[0]!.split(':');
    return [ip, ip.toUpperCase(), groups.join(':'), groups.slice(0, 3).join(':')];
  }
  const octets = ip.split('.');
  return [
    ip,
    `${octets.slice(0, 3).join('.')}.`, // the /24 network
    `::ffff:${ip}`,
    octets.map((o) => Number(o).toString(16).padStart(2, '0')).join(''), // hex
    String(octets.reduce((n, o) => n * 256 + Number(o), 0)), // as one integer
    Buffer.from(ip).toString('base64'),
  ];
}

class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void) {
    this.lines.push(chunk.toString('utf8'));
    done();
  }
}

describeEngines('security: no raw IP address in the database, the logs or Discord', (getDatabase) => {
  let handle: GatekeeperHandle;
  const logs = new LogCapture();

  beforeAll(async () => {
    await resetDatabase(getDatabase());
    handle = await startSecurityGatekeeper(getDatabase(), { logger: createLogger({ level: 'debug', destination: logs }) });
  });
  afterAll(async () => handle?.stop());

  it('keeps only keyed hashes after visitors and staff used the product from known addresses', async () => {
    const emulator = handle.discord.emulator!;
    const channelId = emulator.guild.channelId('verification');

    // a full verification over IPv4, the button in Discord, and the Discord side drained
    const alice = emulator.createUser({ username: 'privacy-alice' });
    const flow = await walkVisitorFlow(handle, { userId: alice.id, forwardedFor: VISITOR_V4, confirmRules: true });
    expect(flow.landedOn).toBe('/rules');
    await flow.agent.get('/api/verification/vpn-status').set('X-Forwarded-For', VISITOR_V4).expect(200);
    await handle.services.outboxWorker.drain();
    const button = emulator.findButton(channelId, 'Complete Verification!')!;
    await emulator.clickButton({ userId: alice.id, channelId, messageId: button.messageId, customId: button.customId });
    await handle.services.outboxWorker.drain();
    expect(emulator.state.memberRoleNames(alice.id)).toEqual(['Verified']);

    // the same over IPv6, and a second account from Alice's address (an alt: evidence is stored)
    const bob = emulator.createUser({ username: 'privacy-bob' });
    expect((await walkVisitorFlow(handle, { userId: bob.id, forwardedFor: VISITOR_V6, confirmRules: true })).landedOn).toBe('/rules');
    const alt = emulator.createUser({ username: 'privacy-alt' });
    expect((await walkVisitorFlow(handle, { userId: alt.id, forwardedFor: VISITOR_V4, confirmRules: true })).landedOn).toBe('/rules');
    // a VPN visitor (proxycheck flags the address): Limited Access
    const carol = emulator.createUser({ username: 'privacy-carol' });
    expect((await walkVisitorFlow(handle, { userId: carol.id, forwardedFor: VPN_V4, confirmRules: true })).landedOn).toBe('/rules');
    await handle.services.outboxWorker.drain();

    // staff: setup, failed logins (throttle rows), a login, dashboard reads
    const cookie = await ownerCookie(handle);
    for (let i = 0; i < 3; i++)
      await request(handle.url)
        .post('/api/staff/login')
        .set('X-Forwarded-For', STAFF_V4)
        .send({ username: OWNER.username, password: `wrong-${i}` });
    await request(handle.url)
      .post('/api/staff/login')
      .set('X-Forwarded-For', STAFF_V4)
      .send({ username: 'nobody', password: 'whatever-password' });
    await request(handle.url).get('/api/admin/users?filter=all').set('Cookie', cookie).set('X-Forwarded-For', STAFF_V4).expect(200);
    await request(handle.url).get(`/api/admin/users/${alt.id}`).set('Cookie', cookie).set('X-Forwarded-For', STAFF_V4).expect(200);
    await request(handle.url).get('/api/admin/audit').set('Cookie', cookie).set('X-Forwarded-For', STAFF_V4).expect(200);

    // control: the server did see the addresses (it asked proxycheck about them, as the consent text says)
    expect(handle.discord.proxycheck!.requests.map((r) => r.ip)).toEqual(expect.arrayContaining([VISITOR_V4, VISITOR_V6, VPN_V4]));

    const needles = [VISITOR_V4, VISITOR_V6, STAFF_V4, VPN_V4].flatMap(spellings);
    const leaks: string[] = [];
    const database = getDatabase();
    for (const table of await listTables(database)) {
      const { rows } = await database.query<{ row: string }>(`select x::text as row from "${table}" x`);
      for (const { row } of rows)
        for (const needle of needles) if (row.includes(needle)) leaks.push(`${table}: ${needle} in ${row.slice(0, 160)}`);
    }
    // the evidence is there, as hashes: the scan would have seen addresses had they been stored
    const { rows: hashes } = await database.query<{ n: number }>(
      "select count(*)::int as n from verification_attempts where ip_hash ~ '^[0-9a-f]{64}$'",
    );
    expect(hashes[0]!.n).toBeGreaterThanOrEqual(3);

    expect(logs.lines.length).toBeGreaterThan(10);
    for (const line of logs.lines)
      for (const needle of needles) if (line.includes(needle)) leaks.push(`log: ${needle} in ${line.slice(0, 200)}`);

    const sentToDiscord = [
      ...emulator.state.requestLog.map((entry) => entry.path),
      ...['logs', 'verification'].flatMap((name) => emulator.state.messages(emulator.guild.channelId(name)).map((m) => JSON.stringify(m))),
    ];
    for (const sent of sentToDiscord)
      for (const needle of needles) if (sent.includes(needle)) leaks.push(`Discord: ${needle} in ${sent.slice(0, 160)}`);

    expect(leaks).toEqual([]);
  });
});
