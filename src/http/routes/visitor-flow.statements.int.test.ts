import request from 'supertest';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { buildFingerprint, startTestGatekeeper } from '../../test-support/gatekeeper';
import { recordPostgresStatements, type StatementLog } from '../../test-support/statement-counter';
import type { GatekeeperHandle } from '../../server';

jest.setTimeout(60_000);

describeEngines('visitor flow round trips', (getDatabase, engine) => {
  let handle: GatekeeperHandle;
  beforeAll(async () => {
    await resetDatabase(getDatabase());
    // the audit sealer chains rows after commit, in its own transaction: held off here so the
    // statements counted are the flow's own; TRUST_PROXY lets a test give its visitor a public address
    ({ handle } = await startTestGatekeeper(getDatabase(), { TRUST_PROXY: 'loopback' }, { auditSealDebounceMs: 600_000 }));
  });
  afterAll(async () => handle?.stop());

  const run = engine === 'postgres' ? it : it.skip;
  run('takes one statement per step, and one per audit row (round trips are the cost of a flow)', async () => {
    const emulator = handle.discord.emulator!;
    const log: StatementLog = recordPostgresStatements();
    try {
      for (let i = 0; i < 3; i++) {
        const user = emulator.createUser({ username: `count${i}` });
        const agent = request.agent(handle.url);
        const steps: Record<string, string[]> = {};
        log.take();
        const { body } = await agent.get('/api/consent/token').expect(200);
        steps.token = log.take();
        await agent
          .post('/api/consent')
          .send({ consent: true, token: body.token, ...buildFingerprint() })
          .expect(200);
        steps.consent = log.take();
        const start = await agent.get('/oauth/start').expect(303);
        steps.start = log.take();
        const authorize = new URL(start.headers.location as string);
        const { code, state } = emulator.authorizeAs(user.id, authorize);
        await agent.get('/oauth/callback').query({ code, state }).expect(303);
        steps.callback = log.take();
        await agent.post('/api/rules/confirm').expect(200);
        steps.rules = log.take();
        if (i < 2) continue;
        // issuing the consent token and the OAuth state touches no table (both are signed); using the
        // consent token and confirming the rules are one statement each; the callback's transaction
        // holds the alt lookup and the outbox
        const counts = Object.fromEntries(Object.entries(steps).map(([step, list]) => [step, list.length]));
        expect({ ...counts, callback: 0 }).toEqual({ token: 0, consent: 1, start: 0, callback: 0, rules: 1 });
        const all = Object.values(steps).flat();
        expect(all.filter((text) => /savepoint|pg_advisory/i.test(text))).toEqual([]);
        expect(all.filter((text) => /audit_append/.test(text))).toHaveLength(2);
        // 8 with the two alt links this flow finds (saved and recounted in one call): the
        // admission step's read (raid window, standing alarm, lockdown switch) and the alt
        // candidate lookup run in the sign-in's statement, and one last statement writes the
        // gate, queues all the Discord actions (one multi-row insert) and appends the audit row
        expect(all.length).toBeLessThanOrEqual(8);
        expect(steps.callback!.filter((text) => /previous_day/.test(text))).toEqual([expect.stringMatching(/^with signed_in as/)]);
        expect(steps.callback!.filter((text) => /find_alt_candidates/.test(text))).toEqual([expect.stringMatching(/^with signed_in as/)]);
        expect(steps.callback!.filter((text) => /set "gate_action"/.test(text))).toEqual([expect.stringMatching(/audit_append/)]);
        expect(steps.callback!.filter((text) => /save_alt_links/.test(text))).toHaveLength(1);
        expect(steps.callback!.filter((text) => /discord_outbox/.test(text))).toEqual([expect.stringMatching(/audit_append/)]);
      }
    } finally {
      log.stop();
    }
  });

  run(
    "uses up the OAuth state and reads the visitor's VPN cache entry while Discord exchanges the code, not after it answers",
    async () => {
      const emulator = handle.discord.emulator!;
      const address = '198.19.8.1';
      const agent = request.agent(handle.url);
      const { body } = await agent.get('/api/consent/token').set('X-Forwarded-For', address).expect(200);
      await agent
        .post('/api/consent')
        .set('X-Forwarded-For', address)
        .send({ consent: true, token: body.token, ...buildFingerprint() })
        .expect(200);
      const start = await agent.get('/oauth/start').set('X-Forwarded-For', address).expect(303);
      const { code, state } = emulator.authorizeAs(
        emulator.createUser({ username: 'early-read' }).id,
        new URL(start.headers.location as string),
      );
      // the token endpoint answers the first exchange with a 429 (retry after 0.5 s): the sign-in waits
      // there, and by then the state's use and the cache read must have been sent
      emulator.faults.set('rate429', { routes: /^\/oauth2\/token$/, count: 1, retryAfterSeconds: 0.5 });
      const log = recordPostgresStatements();
      try {
        const callback = agent
          .get('/oauth/callback')
          .set('X-Forwarded-For', address)
          .query({ code, state })
          .then((res) => res);
        for (let waited = 0; emulator.faults.injected.rate429 === 0 && waited < 5_000; waited += 5)
          await new Promise((resolve) => setTimeout(resolve, 5));
        // the sign-in now waits 0.5 s to ask again; a statement sent on a connection the pool still had
        // to open may be a few milliseconds later than the 429
        const beforeDiscordAnswered: string[] = [];
        for (let waited = 0; beforeDiscordAnswered.length < 2 && waited < 300; waited += 5) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          beforeDiscordAnswered.push(...log.take());
        }
        expect(emulator.faults.injected.rate429).toBe(1);
        expect(beforeDiscordAnswered.filter((text) => /from "vpn_cache"/.test(text))).toHaveLength(1);
        expect(beforeDiscordAnswered.filter((text) => /insert into "one_time_tokens"/.test(text))).toHaveLength(1);
        const answered = await callback;
        expect(answered.status).toBe(303);
        expect(answered.headers.location).toBe('/rules');
        // the check used that read: the cache is not read a second time, nor the state used again
        expect(log.take().filter((text) => /from "vpn_cache"|"one_time_tokens"/.test(text))).toEqual([]);
      } finally {
        log.stop();
        emulator.faults.set('none');
      }
    },
  );
});
