import { DiscordAPIError, HTTPError } from '@discordjs/rest';
import { bucketRoute, createFirstCallGate } from './first-call-gate';

describe('bucket routes', () => {
  it('names routes as the REST client does', () => {
    expect(bucketRoute('/guilds/123456789012345678/members/876543210987654321/roles/111111111111111111')).toBe(
      '/guilds/:id/members/:id/roles/:id',
    );
  });

  it('names every interaction callback and every webhook token as one route, as the REST client does', () => {
    expect(bucketRoute('/interactions/123456789012345678/aW50ZXJhY3Rpb246MTIz.abc/callback')).toBe('/interactions/:id/:token/callback');
    expect(bucketRoute('/webhooks/123456789012345678/aW50ZXJhY3Rpb246MTIz.abc/messages/@original')).toBe(
      '/webhooks/:id/:token/messages/@original',
    );
    expect(bucketRoute('/webhooks/123456789012345678/other-token/messages/876543210987654321')).toBe('/webhooks/:id/:token/messages/:id');
  });
});

/** A call the test answers when it chooses, recording when it started. */
function heldCall(log: string[], name: string) {
  let answer!: (value: string) => void;
  let fail!: (error: unknown) => void;
  const call = () => {
    log.push(`start ${name}`);
    return new Promise<string>((resolve, reject) => {
      answer = resolve;
      fail = reject;
    });
  };
  return { call, answer: (value = name) => answer(value), fail: (error: unknown) => fail(error) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const unknownMember = () => new DiscordAPIError({ code: 10007, message: 'Unknown Member' }, 10007, 404, 'PUT', '/x', {});

describe('first call on a route the REST client has not learnt', () => {
  it('goes alone; the calls made meanwhile start together once it is answered', async () => {
    const gate = createFirstCallGate({ relearnAfterMs: 60_000 });
    const log: string[] = [];
    const [a, b, c] = [heldCall(log, 'a'), heldCall(log, 'b'), heldCall(log, 'c')];
    const results = [
      gate.run('PUT /guilds/:id/members/:id', a.call),
      gate.run('PUT /guilds/:id/members/:id', b.call),
      gate.run('PUT /guilds/:id/members/:id', c.call),
    ];
    await settle();
    expect(log).toEqual(['start a']);
    a.answer();
    await settle();
    expect(log).toEqual(['start a', 'start b', 'start c']);
    b.answer();
    c.answer();
    await expect(Promise.all(results)).resolves.toEqual(['a', 'b', 'c']);

    // learnt: a later call is not held behind another
    const d = heldCall(log, 'd');
    const e = heldCall(log, 'e');
    void gate.run('PUT /guilds/:id/members/:id', d.call);
    void gate.run('PUT /guilds/:id/members/:id', e.call);
    await settle();
    expect(log.slice(3)).toEqual(['start d', 'start e']);
  });

  it('learns from an answered error too (Discord sends the headers with a 4xx)', async () => {
    const gate = createFirstCallGate({ relearnAfterMs: 60_000 });
    const log: string[] = [];
    const [a, b, c] = [heldCall(log, 'a'), heldCall(log, 'b'), heldCall(log, 'c')];
    const first = gate.run('k', a.call);
    const later = [gate.run('k', b.call), gate.run('k', c.call)];
    a.fail(unknownMember());
    await expect(first).rejects.toBeInstanceOf(DiscordAPIError);
    await settle();
    expect(log).toEqual(['start a', 'start b', 'start c']);
    b.answer();
    c.answer();
    await Promise.all(later);
  });

  it.each([
    ['a timeout', new Error('The operation was aborted')],
    ['a 5xx', new HTTPError(502, 'Bad Gateway', 'PUT', '/x', {})],
  ])('lets the next waiting call go first when the first got no answer from Discord (%s)', async (_name, failure) => {
    const gate = createFirstCallGate({ relearnAfterMs: 60_000 });
    const log: string[] = [];
    const [a, b, c] = [heldCall(log, 'a'), heldCall(log, 'b'), heldCall(log, 'c')];
    const first = gate.run('k', a.call);
    const later = [gate.run('k', b.call), gate.run('k', c.call)];
    a.fail(failure);
    await expect(first).rejects.toBe(failure);
    await settle();
    expect(log).toEqual(['start a', 'start b']);
    b.answer();
    await settle();
    expect(log).toEqual(['start a', 'start b', 'start c']);
    c.answer();
    await expect(Promise.all(later)).resolves.toEqual(['b', 'c']);
  });

  it('keeps routes apart', async () => {
    const gate = createFirstCallGate({ relearnAfterMs: 60_000 });
    const log: string[] = [];
    const [a, b] = [heldCall(log, 'a'), heldCall(log, 'b')];
    void gate.run('PUT /guilds/:id/members/:id', a.call);
    void gate.run('PATCH /guilds/:id/members/:id', b.call);
    await settle();
    expect(log).toEqual(['start a', 'start b']);
  });

  it('learns again after the route has been idle as long as the client keeps a bucket', async () => {
    let clock = 0;
    const gate = createFirstCallGate({ relearnAfterMs: 1000, now: () => clock });
    const log: string[] = [];
    const a = heldCall(log, 'a');
    const first = gate.run('k', a.call);
    a.answer();
    await first;
    clock = 999; // answered 999 ms ago: still learnt
    const [b, c] = [heldCall(log, 'b'), heldCall(log, 'c')];
    void gate.run('k', b.call);
    void gate.run('k', c.call);
    await settle();
    expect(log).toEqual(['start a', 'start b', 'start c']);
    b.answer();
    c.answer();
    await settle();
    clock = 999 + 1000; // idle a whole relearn period since the last answer
    const [d, e] = [heldCall(log, 'd'), heldCall(log, 'e')];
    void gate.run('k', d.call);
    void gate.run('k', e.call);
    await settle();
    expect(log.slice(3)).toEqual(['start d']);
  });
});
