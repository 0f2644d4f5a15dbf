import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import request from 'supertest';
import { createLogger, prettyOutput } from '../../logger';
import { errorHandler } from './errors';
import { requestLog } from './request-log';

/** A logger at `level` whose lines are kept as parsed JSON. */
function captured(level: string) {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger({ level, destination }) };
}

/** An app that answers /ok, fails /boom, and on /slow waits until the client goes away, then passes on `failWith`. */
function appWith(log: ReturnType<typeof captured>, failWith?: () => Error) {
  const app = express();
  app.use(requestLog(log.logger));
  app.get('/ok', (_req, res) => void res.json({ ok: true }));
  app.get('/boom', () => {
    throw new Error('boom');
  });
  app.get('/slow', (req, _res, next) => {
    req.once('close', () => (failWith ? next(failWith()) : undefined));
  });
  app.use(errorHandler(log.logger));
  return app;
}

/** Sends GET `path` and closes the connection before any answer, as a cancelled download does. */
async function abortRequest(app: express.Express, path: string): Promise<void> {
  const server = http.createServer(app).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path });
    req.on('error', () => resolve());
    setTimeout(() => req.destroy(), 50);
  });
  // the server sees the close on its next turns
  await new Promise((resolve) => setTimeout(resolve, 100));
  await new Promise((resolve) => server.close(resolve));
}

describe('request log', () => {
  it('writes a request line at debug only: nothing at info', async () => {
    const info = captured('info');
    await request(appWith(info)).get('/ok').expect(200);
    expect(info.lines).toEqual([]);

    const debug = captured('debug');
    await request(appWith(debug)).get('/ok?code=secret').expect(200);
    expect(debug.lines).toHaveLength(1);
    expect(debug.lines[0]).toMatchObject({
      level: 20,
      msg: 'request completed',
      req: { method: 'GET', path: '/ok' },
      res: { status: 200 },
    });
    expect(JSON.stringify(debug.lines)).not.toContain('secret');
  });

  it('a 500 is still an error', async () => {
    const log = captured('info');
    await request(appWith(log)).get('/boom').expect(500);
    expect(log.lines.map((l) => [l.level, l.msg])).toEqual([
      [50, 'unhandled error'],
      [50, 'request errored'],
    ]);
  });

  it('a client that goes away is no error: one debug line, no stack', async () => {
    const log = captured('debug');
    await abortRequest(appWith(log), '/slow');
    expect(log.lines.map((l) => [l.level, l.msg])).toEqual([[20, 'request aborted by the client']]);
  });

  it.each([
    ['ECONNRESET', () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })],
    ['ECONNABORTED (a cancelled download)', () => Object.assign(new Error('Request aborted'), { code: 'ECONNABORTED' })],
    ['an aborted body', () => Object.assign(new Error('request aborted'), { type: 'request.aborted', status: 400 })],
  ])('%s passed to the error handler is logged at debug without a stack', async (_name, failWith) => {
    const log = captured('debug');
    await abortRequest(appWith(log, failWith), '/slow');
    const handled = log.lines.find((l) => l.msg === 'client went away before the answer');
    expect(handled).toMatchObject({ level: 20 });
    expect(JSON.stringify(log.lines)).not.toContain('"stack"');
    expect(log.lines.filter((l) => Number(l.level) >= 40)).toEqual([]);
  });

  it('the same error code from a live connection (a call to another server failing) is still an error', async () => {
    const log = captured('info');
    const app = express();
    app.get('/upstream', () => {
      throw Object.assign(new Error('connection aborted'), { code: 'ECONNABORTED' });
    });
    app.use(errorHandler(log.logger));
    await request(app).get('/upstream').expect(500);
    expect(log.lines.map((l) => l.msg)).toEqual(['unhandled error']);
  });
});

describe('log output', () => {
  it('is readable on a terminal and JSON when piped', () => {
    expect(prettyOutput({ isTTY: true })).toBe(true);
    expect(prettyOutput({ isTTY: false })).toBe(false);
    expect(prettyOutput({})).toBe(false);
  });
});
