import path from 'node:path';
import { EnvError, parseEnv } from './env';

describe('parseEnv', () => {
  it('starts in sandbox mode with defaults when nothing is set', () => {
    const env = parseEnv({});
    expect(env).toMatchObject({
      PORT: 3000,
      SERVICES: ['web', 'bot', 'jobs'],
      RETENTION_DAYS: 30,
      sandbox: true,
      VPN_CHECK_FAILURE: 'allow',
    });
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
    [
      'PUBLIC_URL',
      {
        DISCORD_BOT_TOKEN: 't',
        DISCORD_CLIENT_ID: '123456789012345678',
        DISCORD_CLIENT_SECRET: 's',
        DISCORD_GUILD_ID: '123456789012345679',
      },
    ],
    ['TRUST_PROXY', { TRUST_PROXY: 'true' }],
    ['TRUST_PROXY', { TRUST_PROXY: 'loopback, 10.0.0.0/33' }],
    ['TRUST_PROXY', { TRUST_PROXY: 'my-proxy' }],
    ['TRUST_PROXY', { PUBLIC_URL: 'https://verify.example.com' }],
    ['METRICS_TOKEN', { METRICS_TOKEN: 'short' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'verify.example.com:3000' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'javascript:alert(1)' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'ftp://verify.example.com' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'https://verify.example.com/gate' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'https://user:pw@verify.example.com' }],
    ['TRUST_PROXY', { TRUST_PROXY: '0.0.0.0/1,128.0.0.0/1' }],
    ['TRUST_PROXY', { TRUST_PROXY: '::/1' }],
    ['TRUST_PROXY', { PUBLIC_URL: 'HTTPS://verify.example.com' }],
    ['SANDBOX_DISCORD_PORT', { PORT: '3001' }],
  ])('names %s when it is invalid', (name, source) => {
    expect(() => parseEnv(source)).toThrow(EnvError);
    expect(() => parseEnv(source)).toThrow(new RegExp(`^Invalid environment variable ${name}: `));
  });

  it('leaves sandbox mode when Discord is configured', () => {
    const env = parseEnv({
      DISCORD_BOT_TOKEN: 't',
      DISCORD_CLIENT_ID: '123456789012345678',
      DISCORD_CLIENT_SECRET: 's',
      DISCORD_GUILD_ID: '123456789012345679',
      PUBLIC_URL: 'http://gk.example.com',
    });
    expect(env.sandbox).toBe(false);
  });

  it('reads TRUST_PROXY as false, a hop count or a list of proxy addresses, and says what to use instead of true', () => {
    expect(parseEnv({}).TRUST_PROXY).toBe(false);
    expect(parseEnv({ TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(false);
    expect(parseEnv({ TRUST_PROXY: '1' }).TRUST_PROXY).toBe(1);
    expect(parseEnv({ TRUST_PROXY: 'loopback,  10.0.0.0/8,2001:db8::/32' }).TRUST_PROXY).toBe('loopback, 10.0.0.0/8, 2001:db8::/32');
    expect(() => parseEnv({ TRUST_PROXY: 'true' })).toThrow(/hop count .* loopback/);
  });

  it('refuses PUBLIC_URL=https with TRUST_PROXY=false unless ALLOW_INSECURE_PROXY_SETUP, naming both settings', () => {
    expect(() => parseEnv({ PUBLIC_URL: 'https://verify.example.com' })).toThrow(
      /PUBLIC_URL.*TRUST_PROXY=false.*ALLOW_INSECURE_PROXY_SETUP/,
    );
    expect(parseEnv({ PUBLIC_URL: 'https://verify.example.com', TRUST_PROXY: 'loopback' }).PUBLIC_URL).toBe('https://verify.example.com');
    expect(parseEnv({ PUBLIC_URL: 'https://verify.example.com', ALLOW_INSECURE_PROXY_SETUP: 'true' }).TRUST_PROXY).toBe(false);
  });

  it('keeps PUBLIC_URL as its canonical origin, so joined paths never double a slash and the HTTPS checks see every https URL', () => {
    expect(parseEnv({ PUBLIC_URL: 'http://verify.example.com/' }).PUBLIC_URL).toBe('http://verify.example.com');
    expect(parseEnv({ PUBLIC_URL: 'HTTP://Verify.Example.com:8080' }).PUBLIC_URL).toBe('http://verify.example.com:8080');
    // upper case is still https: the TLS-proxy check applies
    expect(() => parseEnv({ PUBLIC_URL: 'HTTPS://verify.example.com/' })).toThrow(/TRUST_PROXY=false/);
    expect(parseEnv({ PUBLIC_URL: 'HTTPS://verify.example.com/', TRUST_PROXY: 'loopback' }).PUBLIC_URL).toBe('https://verify.example.com');
    expect(() => parseEnv({ PUBLIC_URL: 'verify.example.com' })).toThrow(
      /^Invalid environment variable PUBLIC_URL: .*https:\/\/verify\.example\.com/,
    );
    expect(() => parseEnv({ PUBLIC_URL: 'https://verify.example.com/gate/' })).toThrow(/no path.*use https:\/\/verify\.example\.com$/);
  });

  it('accepts proxy subnets up to a private network wide and refuses wider ones, naming the entry', () => {
    expect(parseEnv({ TRUST_PROXY: '10.0.0.0/8, 2001:db8::/32, 192.0.2.7' }).TRUST_PROXY).toBe('10.0.0.0/8, 2001:db8::/32, 192.0.2.7');
    expect(() => parseEnv({ TRUST_PROXY: 'loopback, 0.0.0.0/1, 128.0.0.0/1' })).toThrow(
      /'0\.0\.0\.0\/1' is wider than a proxy network \(at most \/8 for IPv4\)/,
    );
    expect(() => parseEnv({ TRUST_PROXY: '2000::/3' })).toThrow(/at most \/32 for IPv6/);
  });

  it('refuses a sandbox Discord port equal to PORT, and lets 0 pick free ports for both', () => {
    expect(() => parseEnv({ PORT: '4000', SANDBOX_DISCORD_PORT: '4000' })).toThrow(/SANDBOX_DISCORD_PORT: it is 4000, the same as PORT/);
    expect(parseEnv({ PORT: '0', SANDBOX_DISCORD_PORT: '0' }).PORT).toBe(0);
  });

  it('requires PUBLIC_URL outside sandbox mode with a one-line message', () => {
    const discord = {
      DISCORD_BOT_TOKEN: 't',
      DISCORD_CLIENT_ID: '123456789012345678',
      DISCORD_CLIENT_SECRET: 's',
      DISCORD_GUILD_ID: '123456789012345679',
    };
    expect(() => parseEnv(discord)).toThrow(/^Invalid environment variable PUBLIC_URL: required outside sandbox mode[^\n]*$/);
    expect(parseEnv({}).PUBLIC_URL).toBeUndefined();
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
