import pino, { type Logger } from 'pino';

export type { Logger };

/** Paths that must never reach a log line (tokens, cookies, passwords, addresses). */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-forwarded-for"]',
  'req.headers["x-real-ip"]',
  'req.remoteAddress',
  'req.remotePort',
  'res.headers["set-cookie"]',
  '*.password',
  '*.newPassword',
  '*.token',
  '*.accessToken',
  '*.access_token',
  '*.refresh_token',
  '*.code',
  '*.secret',
  '*.ip',
];

/**
 * Readable lines on a terminal, JSON when the output is piped or collected (a file, a log shipper, a
 * container runtime): decided by whether standard output is a TTY.
 */
export function prettyOutput(stdout: { isTTY?: boolean }): boolean {
  return stdout.isTTY === true;
}

export function createLogger(options: { level: string; pretty?: boolean; destination?: pino.DestinationStream }): Logger {
  const base: pino.LoggerOptions = {
    level: options.level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: undefined,
  };
  if (options.destination) return pino(base, options.destination);
  if (options.pretty) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' } } });
  }
  return pino(base);
}

/** A logger that writes nothing: the default in tests. */
export const silentLogger: Logger = pino({ level: 'silent' });
