import type { Env } from './env';

/** The fields Node puts on a failed system call (listen, getaddrinfo, mkdir …). */
interface SystemCallError {
  code?: string;
  syscall?: string;
  port?: number;
  address?: string;
  hostname?: string;
  path?: string;
}

/**
 * What a failed listen means for the setting that chose it. The web server listens on
 * HOST:PORT; in sandbox mode the Discord emulator listens on SANDBOX_DISCORD_PORT as well,
 * so the port in Node's error tells which setting to change.
 */
function listenFailure(error: SystemCallError, env: Env): string | null {
  const sandboxPort = env.sandbox && error.port === env.SANDBOX_DISCORD_PORT && error.port !== env.PORT;
  const variable = sandboxPort ? 'SANDBOX_DISCORD_PORT' : 'PORT';
  switch (error.code) {
    case 'EADDRINUSE':
      return `Port ${error.port} is already in use (${variable}): stop what uses it, or set ${variable} to a free port${sandboxPort ? ' (0 picks any free port)' : ''}`;
    case 'EACCES':
      return `Port ${error.port} needs elevated rights (${variable}): use a port above 1023, e.g. 3000, behind your proxy`;
    case 'EADDRNOTAVAIL':
      return `Cannot listen on ${error.address ?? env.HOST} (HOST): no network interface of this machine has that address; use 0.0.0.0 for all of them or 127.0.0.1 for this machine only`;
    default:
      return null;
  }
}

/**
 * The one line an operator reads when the product cannot start for a reason they fix in
 * its settings or on the machine (a port taken, a host name that does not resolve, a data
 * folder that cannot be made), or null for anything else, which is a bug and keeps its stack.
 */
export function describeStartupError(error: unknown, env: Env): string | null {
  if (typeof error !== 'object' || error === null) return null;
  const failure = error as SystemCallError;
  if (failure.syscall === 'listen') return listenFailure(failure, env);
  if (failure.syscall === 'getaddrinfo' && failure.hostname === env.HOST) {
    return `Cannot listen on ${env.HOST} (HOST): the name does not resolve; use an address of this machine, e.g. 0.0.0.0 or 127.0.0.1`;
  }
  const dataDirCodes = ['EACCES', 'EPERM', 'EEXIST', 'ENOTDIR', 'EROFS', 'ENOSPC'];
  if (failure.path?.startsWith(env.dataDir) && failure.code && dataDirCodes.includes(failure.code)) {
    return `Cannot use the data folder ${env.dataDir} (DATA_DIR): ${failure.code} on ${failure.path}; point DATA_DIR at a folder this user can write`;
  }
  return null;
}
