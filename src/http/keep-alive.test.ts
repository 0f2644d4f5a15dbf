import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { keepConnectionsAlive } from './keep-alive';

jest.setTimeout(30_000);

/** Sends one request on the socket and resolves with the status line of the answer, or the way the socket ended. */
function ask(socket: net.Socket): Promise<string> {
  return new Promise((resolve) => {
    if (socket.readableEnded || socket.destroyed) return resolve('closed by the server');
    const onData = (chunk: Buffer) => {
      cleanup();
      resolve(chunk.toString('latin1').split('\r\n')[0]!);
    };
    const onEnd = () => {
      cleanup();
      resolve('closed by the server');
    };
    const cleanup = () => {
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('close', onEnd);
      socket.off('error', onEnd);
    };
    socket.on('data', onData);
    socket.on('end', onEnd);
    socket.on('close', onEnd);
    socket.on('error', onEnd);
    socket.write('GET / HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n');
  });
}

describe('idle connections', () => {
  it('keeps a connection that was idle for longer than Node’s default 5 s open for the next request', async () => {
    const server = http.createServer((_req, res) => res.end('ok'));
    keepConnectionsAlive(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
    try {
      expect(await ask(socket)).toBe('HTTP/1.1 200 OK');
      await new Promise((resolve) => setTimeout(resolve, 6_500));
      expect(await ask(socket)).toBe('HTTP/1.1 200 OK');
    } finally {
      socket.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
