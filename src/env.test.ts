import path from 'node:path';
import { EnvError, parseEnv } from './env';

describe('parseEnv', () => {
  it('starts in sandbox mode with defaults when nothing is set', () => {
    const env = parseEnv({});
    expect(env).toMatchObject({ PORT: 3000, SERVICES: ['web', 'bot', 'jobs'], RETENTION_DAYS: 30, sandbox: true, VPN_CHECK_FAILURE: 'allow' });
    expect(env.dataDir).toBe(path.resolve('./data'));
  });

  it.each([
    ['PORT', { PORT: 'abc' }],
    ['RETENTION_DAYS', { RETENTION_DAYS: '0' }],
    ['SERVICES', { SERVICES: 'web,mail' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }],
    ['VPN_CHECK_FAILURE', { VPN_CHECK_FAILURE: 'maybe' }],
    ['SESSION_SECRET', { SESSION_SECRET: 'short' }],
    ['WEB_CONCURRENCY', { WEB_CONCURRENCY: '0' }],
    ['WEB_CONCURRENCY', { WEB_CONCURRENCY: '65' }],
    ['WEB_CONCURRENCY', { WEB_CONCURRENCY: 'many' }],
    ['DISCORD_CLIENT_ID', { DISCORD_BOT_TOKEN: 'token' }],
    ['DISCORD_GUILD_ID', { DISCORD_BOT_TOKEN: 't', DISCORD_CLIENT_ID: '123456789012345678', DISCORD_CLIENT_SECRET: 's' }],
  ])('names %s when it is invalid', (name, source) => {
    expect(() => parseEnv(source)).toThrow(EnvError);
    expect(() => parseEnv(source)).toThrow(new RegExp(`^Invalid environment variable ${name}: `));
  });

  it('leaves sandbox mode when Discord is configured', () => {
    const env = parseEnv({ DISCORD_BOT_TOKEN: 't', DISCORD_CLIENT_ID: '123456789012345678', DISCORD_CLIENT_SECRET: 's', DISCORD_GUILD_ID: '123456789012345679' });
    expect(env.sandbox).toBe(false);
  });

  it('reads WEB_CONCURRENCY as a process count or auto, 1 by default', () => {
    expect(parseEnv({}).WEB_CONCURRENCY).toBe(1);
    expect(parseEnv({ WEB_CONCURRENCY: '4' }).WEB_CONCURRENCY).toBe(4);
    expect(parseEnv({ WEB_CONCURRENCY: 'auto' }).WEB_CONCURRENCY).toBe('auto');
  });

  it('treats empty values as unset', () => {
    expect(parseEnv({ PORT: '', DATABASE_URL: '' }).PORT).toBe(3000);
  });
});
