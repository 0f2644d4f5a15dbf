import path from 'node:path';
import { parseEnv } from './env';
import { describeStartupError } from './start-up-errors';

const env = parseEnv({ PORT: '3000', SANDBOX_DISCORD_PORT: '3001', HOST: '0.0.0.0', DATA_DIR: '/srv/gk' });

/** An error shaped like the one Node raises for a failed system call. */
const systemError = (fields: Record<string, unknown>) => Object.assign(new Error('system call failed'), fields);

describe('describeStartupError', () => {
  it('names the setting whose port is taken: the web port or the sandbox Discord port', () => {
    expect(describeStartupError(systemError({ code: 'EADDRINUSE', syscall: 'listen', port: 3000 }), env)).toBe(
      'Port 3000 is already in use (PORT): stop what uses it, or set PORT to a free port',
    );
    expect(describeStartupError(systemError({ code: 'EADDRINUSE', syscall: 'listen', port: 3001 }), env)).toMatch(
      /^Port 3001 is already in use \(SANDBOX_DISCORD_PORT\): .* set SANDBOX_DISCORD_PORT to a free port \(0 picks any free port\)$/,
    );
  });

  it('names HOST when the address is not this machine’s or the name does not resolve', () => {
    expect(describeStartupError(systemError({ code: 'EADDRNOTAVAIL', syscall: 'listen', address: '10.9.9.9', port: 3000 }), env)).toMatch(
      /^Cannot listen on 10\.9\.9\.9 \(HOST\)/,
    );
    const named = parseEnv({ HOST: 'gk.invalid' });
    expect(describeStartupError(systemError({ code: 'ENOTFOUND', syscall: 'getaddrinfo', hostname: 'gk.invalid' }), named)).toMatch(
      /^Cannot listen on gk\.invalid \(HOST\): the name does not resolve/,
    );
  });

  it('names DATA_DIR when the data folder cannot be made or written', () => {
    const line = describeStartupError(systemError({ code: 'EEXIST', syscall: 'mkdir', path: path.resolve('/srv/gk') }), env);
    expect(line).toMatch(/^Cannot use the data folder \/srv\/gk \(DATA_DIR\): EEXIST/);
  });

  it('leaves anything else to the stack trace: it is a bug, not a setting', () => {
    expect(describeStartupError(new TypeError('x is undefined'), env)).toBeNull();
    expect(describeStartupError(systemError({ code: 'ECONNRESET', syscall: 'read' }), env)).toBeNull();
    expect(describeStartupError('a string', env)).toBeNull();
  });
});
