import type { Logger } from 'pino';
import { createDiscordEmulator, type DiscordEmulator } from '../index';

/** The token a bot under test appends to its User-Agent, as a test guard would look for it. */
const APP_TOKEN = 'ExampleBot/1.0';

/** A request as a raw HTTP client sends it; `product` adds the User-Agent of the bot under test. */
async function send(
  emulator: DiscordEmulator,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; product?: boolean; bot?: boolean } = {},
) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.product) headers['User-Agent'] = `DiscordBot (https://discord.js.org, 2.6.3) ${APP_TOKEN} Node.js/20`;
  if (options.bot !== false) headers.Authorization = `Bot ${emulator.application.botToken}`;
  if (options.body !== undefined) headers['Content-Type'] ??= 'application/json';
  const res = await fetch(`${emulator.apiBase}/v10${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> | null };
}

describe("the emulator checks every request against Discord's OpenAPI description", () => {
  let emulator: DiscordEmulator;
  const warnings: unknown[] = [];
  const debugLines: unknown[] = [];
  const logger = {
    warn: (fields: unknown) => void warnings.push(fields),
    debug: (fields: unknown) => void debugLines.push(fields),
    error: () => undefined,
  } as unknown as Logger;

  beforeEach(async () => {
    warnings.length = 0;
    debugLines.length = 0;
    emulator = await createDiscordEmulator({ rateLimits: false, seed: 'empty', logger });
  });
  afterEach(async () => emulator.close());

  const channel = () => emulator.createChannel('checks').id;

  it('answers a body of the wrong shape as Discord does: 400, code 50035, the field in errors', async () => {
    const res = await send(emulator, 'POST', `/channels/${channel()}/messages`, {
      body: { content: 5, embeds: [{ title: 'x'.repeat(300) }] },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 50035,
      message: 'Invalid Form Body',
      errors: {
        content: { _errors: [{ code: 'BASE_TYPE_INVALID' }] },
        embeds: { 0: { title: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH' }] } } },
      },
    });
    expect(emulator.state.messages(channel()).length).toBe(0);
  });

  it('reads query values as their documented types: limit=1000 on a list of at most 100 is refused', async () => {
    const id = channel();
    expect((await send(emulator, 'GET', `/channels/${id}/messages?limit=100`)).status).toBe(200);
    const res = await send(emulator, 'GET', `/channels/${id}/messages?limit=1000`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 50035, errors: { limit: { _errors: [{ code: 'NUMBER_TYPE_MAX' }] } } });
  });

  it('accepts what Discord documents and discord.js sends: integers as strings, nullable fields, unions', async () => {
    const res = await send(emulator, 'POST', `/channels/${channel()}/messages`, {
      product: true,
      body: {
        content: 'hi',
        flags: 0,
        allowed_mentions: { parse: [] },
        components: [{ type: 1, components: [{ type: 2, style: 1, label: 'Go', custom_id: 'go' }] }],
        embeds: null,
      },
    });
    expect(res.status).toBe(200);
    // "Our API accepts strings for int fields if they are parseable as ints" (the description's notes)
    const suppressed = await send(emulator, 'POST', `/channels/${channel()}/messages`, {
      product: true,
      body: { content: 'no preview https://example.com', flags: '4' },
    });
    expect(suppressed).toMatchObject({ status: 200, body: { flags: 4 } });
    const commands = await send(emulator, 'PUT', `/applications/${emulator.application.id}/guilds/${emulator.guild.id}/commands`, {
      product: true,
      body: [
        {
          name: 'lookup',
          description: 'Look a member up',
          default_member_permissions: '32',
          options: [{ type: 6, name: 'user', description: 'who', required: true }],
        },
      ],
    });
    expect(commands.status).toBe(200);
    expect(emulator.openapiViolations).toEqual([]);
  });

  it('records the problems of each request with its User-Agent, which tells the bot’s requests from a test’s', async () => {
    await send(emulator, 'PUT', `/guilds/${emulator.guild.id}/bans/1`, { product: true, body: { delete_message_seconds: 'a week' } });
    await send(emulator, 'GET', `/guilds/${emulator.guild.id}`, { bot: false });
    await send(emulator, 'GET', '/guilds/1/not-a-route', { product: true });
    await send(emulator, 'DELETE', `/guilds/${emulator.guild.id}/bans/1`, {
      product: true,
      headers: { 'X-Audit-Log-Reason': 'not encoded' },
    });
    await send(emulator, 'DELETE', `/guilds/${emulator.guild.id}/bans/2`, {
      product: true,
      headers: { 'X-Audit-Log-Reason': encodeURIComponent('é'.repeat(513)) },
    });
    await send(emulator, 'GET', `/channels/${channel()}/messages?limit=5&colour=red`, { product: true });
    // Discord ignores a field it does not document: the message is posted, the field reported
    expect(
      (
        await send(emulator, 'POST', `/channels/${channel()}/messages`, {
          product: true,
          body: { content: 'hi', colour: 'red', embeds: [{ title: 't', colour: 1 }] },
        })
      ).status,
    ).toBe(200);

    const found = emulator.openapiViolations.map((v) => [v.method, v.path, v.userAgent.includes(APP_TOKEN), v.problems, v.notes]);
    expect(found).toEqual([
      ['PUT', '/guilds/{guild_id}/bans/{user_id}', true, ['body delete_message_seconds should be an integer'], []],
      // Node's fetch sends `User-Agent: node`
      [
        'GET',
        '/guilds/{guild_id}',
        false,
        ['User-Agent is not in the form "DiscordBot ($url, $versionNumber)"', 'no Authorization header on an operation that requires one'],
        [],
      ],
      ['GET', '/guilds/1/not-a-route', true, ['the path is not a documented operation'], []],
      ['DELETE', '/guilds/{guild_id}/bans/{user_id}', true, ['X-Audit-Log-Reason is not URL-encoded'], []],
      ['DELETE', '/guilds/{guild_id}/bans/{user_id}', true, ['X-Audit-Log-Reason is longer than 512 characters'], []],
      // what Discord ignores is noted, not counted against the sender
      ['GET', '/channels/{channel_id}/messages', true, [], ['query parameter "colour" is not documented']],
      [
        'POST',
        '/channels/{channel_id}/messages',
        true,
        [],
        ['body colour is not a documented field', 'body embeds.0.colour is not a documented field'],
      ],
    ]);
    // sandbox mode: each one is a warning in the log, never an exception
    expect(warnings).toHaveLength(5);
    expect(debugLines).toHaveLength(2);
  });

  it('checks the OAuth2 token endpoints, which the description leaves out, against Discord’s OAuth2 documentation', async () => {
    const form = (fields: Record<string, string>) =>
      fetch(`${emulator.apiBase}/v10/oauth2/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields),
      });
    const res = await form({ grant_type: 'authorization_code', code: 'x', redirect_uri: 'http://127.0.0.1/cb', password: 'hunter2' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_request', error_description: 'password is not a documented field' });
    expect(emulator.openapiViolations.at(-1)?.problems).toEqual(['body password is not a documented field']);
    expect(JSON.stringify(emulator.openapiViolations)).not.toContain('hunter2');
  });

  it('masks what could be a token in an undocumented path', async () => {
    await send(emulator, 'GET', '/webhooks/1/aW50ZXJhY3Rpb246MTIzNDU2Nzg5MDpzZWNyZXQ/nothing-here');
    expect(emulator.openapiViolations.at(-1)?.path).toBe('/webhooks/1/…/nothing-here');
  });

  it('can be turned off', async () => {
    const quiet = await createDiscordEmulator({ rateLimits: false, seed: 'empty', checkOpenApi: false });
    try {
      expect((await send(quiet, 'GET', `/guilds/${quiet.guild.id}`, { bot: true })).status).toBe(200);
      expect(quiet.openapiViolations).toEqual([]);
    } finally {
      await quiet.close();
    }
  });
});
