import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { chooseEncoding } from './accept-encoding';
import { spaRouter } from './spa';

describe('chooseEncoding', () => {
  const both = new Set(['br', 'gzip'] as const);
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['gzip, deflate, br', 'br'],
    ['gzip', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['br;q=0.5, gzip;q=0.8', 'gzip'],
    ['br;q=0.8, gzip;q=0.8', 'br'],
    ['*', 'br'],
    ['*;q=0', undefined],
    ['identity', undefined],
    ['x-gzip', 'gzip'],
    ['BR ; Q=1', 'br'],
  ])('%s → %s', (header, expected) => {
    expect(chooseEncoding(header, both)).toBe(expected);
  });
  it('only offers stored copies', () => {
    expect(chooseEncoding('br, gzip', new Set(['gzip'] as const))).toBe('gzip');
    expect(chooseEncoding('br', new Set(['gzip'] as const))).toBeUndefined();
  });
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function get(base: string, pathname: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(pathname, base), { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the built web app with compressed copies', () => {
  let dir: string;
  let server: http.Server;
  let base: string;
  const script = 'console.log("visitor page");'.repeat(50);
  const html = `<!doctype html><html><head><script src="/assets/index-AbCd1234.js"></script></head><body>${'<p>hello</p>'.repeat(40)}</body></html>`;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gk-spa-'));
    fs.mkdirSync(path.join(dir, 'assets'));
    fs.mkdirSync(path.join(dir, '.vite'));
    fs.writeFileSync(path.join(dir, '.vite', 'manifest.json'), '{}');
    fs.writeFileSync(path.join(dir, 'index.html'), html);
    fs.writeFileSync(path.join(dir, 'assets', 'index-AbCd1234.js'), script);
    fs.writeFileSync(path.join(dir, 'favicon.svg'), '<svg/>');
    // the build's own step (jest cannot import an ES module here: run it as the build does)
    const built = spawnSync(process.execPath, [path.join(__dirname, '../../scripts/compress-web.mjs'), dir], { encoding: 'utf8' });
    expect(built.status).toBe(0);
    const app = express();
    app.use(spaRouter(dir));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('sends brotli when the browser accepts it, with the original type and an immutable lifetime for hashed files', async () => {
    const res = await get(base, '/assets/index-AbCd1234.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(res.headers.vary).toMatch(/Accept-Encoding/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(Number(res.headers['content-length'])).toBe(res.body.length);
    expect(res.body.length).toBeLessThan(script.length);
    expect(zlib.brotliDecompressSync(res.body).toString()).toBe(script);
  });

  it('sends gzip when brotli is refused, and the file as is when nothing is accepted', async () => {
    const gz = await get(base, '/assets/index-AbCd1234.js', { 'accept-encoding': 'br;q=0, gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.body).toString()).toBe(script);
    const plain = await get(base, '/assets/index-AbCd1234.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/Accept-Encoding/);
    expect(plain.body.toString()).toBe(script);
    expect(Number(plain.headers['content-length'])).toBe(script.length);
  });

  it('serves index.html compressed and never cached, for the root and for app routes', async () => {
    for (const route of ['/', '/verify/abc']) {
      const res = await get(base, route, { 'accept-encoding': 'br, gzip' });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['content-encoding']).toBe('br');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(zlib.brotliDecompressSync(res.body).toString()).toBe(html);
    }
  });

  it('answers HEAD with the headers and no body, and a range of the copy it sends', async () => {
    const head = await get(base, '/assets/index-AbCd1234.js', { 'accept-encoding': 'gzip' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-encoding']).toBe('gzip');
    expect(Number(head.headers['content-length'])).toBe(fs.statSync(path.join(dir, 'assets', 'index-AbCd1234.js.gz')).size);
    expect(head.body.length).toBe(0);
    const range = await get(base, '/assets/index-AbCd1234.js', { range: 'bytes=0-9' });
    expect(range.status).toBe(206);
    expect(range.body.toString()).toBe(script.slice(0, 10));
    expect(range.headers['content-range']).toBe(`bytes 0-9/${script.length}`);
  });

  it('does not cache unhashed files for a year, and does not serve build metadata or traversals', async () => {
    const icon = await get(base, '/favicon.svg');
    expect(icon.headers['cache-control']).toBe('public, max-age=3600');
    for (const route of ['/.vite/manifest.json', '/assets/index-AbCd1234.js.br', '/..%2f..%2fetc%2fpasswd']) {
      const res = await get(base, route);
      expect(res.headers['content-type']).toMatch(/^text\/html/); // the app's own 404, not the file
    }
  });

  it('answers the app for a path the filesystem cannot name (a 256-byte segment, a path through a file), never an error', async () => {
    for (const route of [
      `/${'a'.repeat(256)}`,
      `/assets/${'b'.repeat(4096)}.js`,
      '/index.html/x',
      '/favicon.svg/..%2f',
      `/${'%C3%A9'.repeat(200)}`,
    ]) {
      const res = await get(base, route);
      expect({ route: route.slice(0, 40), status: res.status }).toEqual({ route: route.slice(0, 40), status: 200 });
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body.toString()).toBe(html);
    }
  });
});
