import { eq } from 'drizzle-orm';
import { auditLog, members, verificationAttempts } from '../../db/schema';
import type { Database } from '../../db/client';
import { createTestDatabase } from '../../test-support/database';
import { describeOn } from '../../test-support/engine-pass';
import { startTestGatekeeper, walkVisitorFlow } from '../../test-support/gatekeeper';
import type { GatekeeperHandle } from '../../server';

jest.setTimeout(60_000);

/**
 * A visitor whose database connection dies mid-way (PostgreSQL restarted, connections terminated by an
 * administrator): in the sign-in's transaction, a single-use token's use, the rules' confirmation or the
 * 'Complete Verification!' button's transaction. The fault is a trigger that terminates its own connection the first time it fires: a
 * sequence counts the firings, since a sequence, unlike a table, keeps its count when the transaction
 * rolls back. PostgreSQL only: PGlite has no connection to lose (its worker's end is the process's).
 */
describeOn('postgres')('a sign-in whose database connection is lost [postgres]', () => {
  let database: Database;
  let handle: GatekeeperHandle;
  const getDatabase = () => database;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    ({ handle } = await startTestGatekeeper(database));
  });
  afterAll(async () => {
    await handle?.stop();
    await database?.close();
  });
  /** Takes the fault below away, wherever it was put. */
  const removeFault = () =>
    getDatabase().exec(`
      drop trigger if exists lose_connection_once on verification_attempts;
      drop trigger if exists lose_connection_once on audit_log;
      drop trigger if exists lose_connection_once on one_time_tokens;
      drop trigger if exists lose_connection_once on discord_outbox;
      drop function if exists lose_connection_once();
      drop sequence if exists lose_connection_firings;`);
  afterEach(removeFault);

  /**
   * Makes the first insert into `table` end its own connection (FATAL 57P01, as pg_terminate_backend does): in
   * the statement itself, or, `atCommit`, when the transaction commits (a deferred constraint trigger);
   * `everyOther`: the first, third, fifth … insert.
   */
  const loseConnectionOnFirstInsert = (
    table: 'verification_attempts' | 'audit_log' | 'one_time_tokens' | 'discord_outbox',
    atCommit = false,
    everyOther = false,
  ) =>
    getDatabase().exec(`
      create sequence lose_connection_firings;
      create function lose_connection_once() returns trigger language plpgsql as $$
      begin
        if nextval('lose_connection_firings') ${everyOther ? '% 2 = 1' : '= 1'} then
          perform pg_terminate_backend(pg_backend_pid());
          perform pg_sleep(5); -- the termination arrives during the sleep
        end if;
        return new;
      end $$;
      ${
        atCommit
          ? `create constraint trigger lose_connection_once after insert on ${table} deferrable initially deferred for each row execute function lose_connection_once();`
          : `create trigger lose_connection_once before insert on ${table} for each row execute function lose_connection_once();`
      }`);

  const firings = async () => {
    const { rows } = await getDatabase().query<{ last_value: string; is_called: boolean }>(
      'select last_value, is_called from lose_connection_firings',
    );
    return rows[0]!.is_called ? Number(rows[0]!.last_value) : 0;
  };
  const memberOf = async (discordId: string) => (await getDatabase().db.select().from(members).where(eq(members.discordId, discordId)))[0];

  it.each([
    ['its first statement (the attempt written)', 'verification_attempts'],
    ['its last statement (the audit row written)', 'audit_log'],
  ] as const)('runs again when the connection is lost in %s, and the visitor reaches the rules', async (_where, table) => {
    await loseConnectionOnFirstInsert(table);
    const user = handle.discord.emulator!.createUser({ username: `steady-${table}` });
    const { agent, landedOn } = await walkVisitorFlow(handle, { userId: user.id });
    expect(landedOn).toBe('/rules');
    // the first run died with its connection and kept nothing; the second run's sign-in is the only one kept
    expect(await firings()).toBe(2);
    await agent.post('/api/rules/confirm').expect(200);
    const member = await memberOf(user.id);
    expect(member).toMatchObject({ status: 'verified', rulesConfirmed: true, verificationCount: 1 });
    expect(await getDatabase().db.select().from(verificationAttempts).where(eq(verificationAttempts.memberId, member!.id))).toHaveLength(1);
    const completed = await getDatabase().db.select().from(auditLog).where(eq(auditLog.action, 'verification.completed'));
    expect(completed.filter((row) => row.targetId === user.id)).toHaveLength(1);
  });

  it('runs again when the connection is lost while it commits and the commit was not kept', async () => {
    await loseConnectionOnFirstInsert('audit_log', true);
    const user = handle.discord.emulator!.createUser({ username: 'unsure' });
    const { landedOn } = await walkVisitorFlow(handle, { userId: user.id });
    // the commit failed (its deferred trigger ended the connection): the sign-in's attempt is not there, so it ran again
    expect(landedOn).toBe('/rules');
    expect(await firings()).toBe(2);
    const member = await memberOf(user.id);
    expect(member).toMatchObject({ status: 'verified', verificationCount: 1 });
    expect(await getDatabase().db.select().from(verificationAttempts).where(eq(verificationAttempts.memberId, member!.id))).toHaveLength(1);
  });

  it('goes on without running again when the commit was kept and only its answer was lost', async () => {
    const user = handle.discord.emulator!.createUser({ username: 'kept' });
    const db = getDatabase().db;
    const attemptsOf = async () =>
      (
        await db
          .select({ id: verificationAttempts.id })
          .from(verificationAttempts)
          .innerJoin(members, eq(members.id, verificationAttempts.memberId))
          .where(eq(members.discordId, user.id))
      ).length;
    // the sign-in's transaction commits, then its answer is "lost": the error node-postgres gives for a dropped connection.
    // Only the sign-in's, known by its work: the audit sealer commits transactions of its own meanwhile, and one that
    // ended while the sign-in's was being checked was once taken for it too (lost counted 2, on a loaded machine)
    const transaction = db.transaction.bind(db);
    let lost = 0;
    const spy = jest.spyOn(db, 'transaction').mockImplementation(async (work, config) => {
      const value = await transaction(work, config);
      if (lost === 0 && /\bsignIn\(deps, tx\b/.test(String(work))) {
        lost++;
        throw new Error('Failed query: commit', { cause: new Error('Connection terminated unexpectedly') });
      }
      return value;
    });
    try {
      const { agent, landedOn } = await walkVisitorFlow(handle, { userId: user.id });
      expect(lost).toBe(1);
      expect(landedOn).toBe('/rules');
      await agent.post('/api/rules/confirm').expect(200);
    } finally {
      spy.mockRestore();
    }
    // kept once: one attempt, one audit row, one guild join queued
    expect(await attemptsOf()).toBe(1);
    expect(await memberOf(user.id)).toMatchObject({ status: 'verified', rulesConfirmed: true, verificationCount: 1 });
    const completed = await db.select().from(auditLog).where(eq(auditLog.action, 'verification.completed'));
    expect(completed.filter((row) => row.targetId === user.id)).toHaveLength(1);
  });

  it("tries the consent token's and the OAuth state's use again when the connection is lost, and the visitor goes on", async () => {
    // the consent token's use (1st insert) and the OAuth state's (3rd) each lose their connection once
    await loseConnectionOnFirstInsert('one_time_tokens', false, true);
    const user = handle.discord.emulator!.createUser({ username: 'tokens' });
    const { landedOn } = await walkVisitorFlow(handle, { userId: user.id });
    expect(landedOn).toBe('/rules');
    expect(await firings()).toBe(4);
    expect(await memberOf(user.id)).toMatchObject({ status: 'verified' });
  });

  it('tries the rules confirmation and the Discord button again when the connection is lost, and the member is verified', async () => {
    const emulator = handle.discord.emulator!;
    const user = emulator.createUser({ username: 'button' });
    const { agent } = await walkVisitorFlow(handle, { userId: user.id });
    await handle.services.outboxWorker.drain();

    // the confirmation's audit row loses its connection once: the visitor still gets 200, not 503
    await loseConnectionOnFirstInsert('audit_log');
    await agent.post('/api/rules/confirm').expect(200);
    expect(await firings()).toBe(2);
    expect(await memberOf(user.id)).toMatchObject({ rulesConfirmed: true });

    // the button's first outbox row loses its connection once: the click still verifies
    await removeFault();
    await loseConnectionOnFirstInsert('discord_outbox');
    const channelId = emulator.guild.channelId('verification');
    const button = emulator.findButton(channelId, 'Complete Verification!')!;
    const reply = await emulator.clickButton({ userId: user.id, channelId, messageId: button.messageId, customId: button.customId });
    expect(JSON.stringify(reply)).toContain("You're verified");
    expect(await firings()).toBe(3);
    await handle.services.outboxWorker.drain();
    const roles = (emulator.state.guild.members.get(user.id)?.roles ?? []).map((id: string) => emulator.state.guild.roles.get(id)?.name);
    expect(roles).toEqual(['Verified']);
    expect(await memberOf(user.id)).toMatchObject({ guildAccess: 'verified' });
  });
});
