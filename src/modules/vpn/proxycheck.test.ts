import { createProxycheckClient, ProxycheckError, type ProxycheckFailureReason } from './proxycheck.client';
import {
  createProxycheckEmulator,
  SANDBOX_CLEAN_IP,
  SANDBOX_PROXY_IP,
  SANDBOX_VPN_IP,
  type ProxycheckEmulator,
} from './proxycheck-emulator';

describe('proxycheck client against the emulator', () => {
  let emulator: ProxycheckEmulator;
  beforeAll(async () => {
    emulator = await createProxycheckEmulator();
  });
  afterAll(async () => {
    await emulator.close();
  });
  beforeEach(() => {
    emulator.setFault('none');
    emulator.clearRequests();
  });

  const client = (timeoutMs = 2000, apiKey: string | null = 'test-key') =>
    createProxycheckClient({ baseUrl: `${emulator.url}/`, apiKey: apiKey ?? undefined, timeoutMs });

  async function failureOf(promise: Promise<unknown>): Promise<ProxycheckFailureReason> {
    try {
      await promise;
    } catch (error) {
      expect(error).toBeInstanceOf(ProxycheckError);
      return (error as ProxycheckError).reason;
    }
    throw new Error('expected a failure');
  }

  it('sends GET /v2/<ip>?key=…&vpn=1&asn=1', async () => {
    await client().lookup(SANDBOX_CLEAN_IP);
    expect(emulator.requests).toEqual([{ ip: SANDBOX_CLEAN_IP, key: 'test-key', query: { key: 'test-key', vpn: '1', asn: '1' } }]);
  });

  it('omits the key when none is configured', async () => {
    await client(2000, null).lookup(SANDBOX_CLEAN_IP);
    expect(emulator.requests[0]?.key).toBeNull();
  });

  it('reads a VPN with its operator and country', async () => {
    await expect(client().lookup(SANDBOX_VPN_IP)).resolves.toEqual({
      verdict: 'vpn',
      provider: 'Sandbox VPN',
      countryCode: 'NL',
      type: 'VPN',
    });
  });

  it('reads a proxy', async () => {
    await expect(client().lookup(SANDBOX_PROXY_IP)).resolves.toMatchObject({ verdict: 'proxy', type: 'SOCKS5' });
  });

  it('reads a clean address', async () => {
    await expect(client().lookup(SANDBOX_CLEAN_IP)).resolves.toEqual({
      verdict: 'clean',
      provider: 'Sandbox Broadband',
      countryCode: 'US',
      type: 'Residential',
    });
    await expect(client().lookup('8.8.8.8')).resolves.toMatchObject({ verdict: 'clean', countryCode: null });
  });

  it('reads IPv6 addresses and marks made by tests', async () => {
    emulator.markVpn('2001:db8:aa::/48', 'Example VPN', 'DE');
    await expect(client().lookup('2001:db8:aa::7')).resolves.toMatchObject({ verdict: 'vpn', provider: 'Example VPN', countryCode: 'DE' });
    emulator.markProxy('192.0.2.99', 'TOR', 'Tor');
    await expect(client().lookup('192.0.2.99')).resolves.toMatchObject({ verdict: 'tor' });
  });

  it.each([
    ['error', 'error'],
    ['denied', 'denied'],
    ['unavailable', 'http'],
  ] as const)('treats the %s fault as a failure (%s)', async (fault, reason) => {
    emulator.setFault(fault);
    expect(await failureOf(client().lookup(SANDBOX_VPN_IP))).toBe(reason);
  });

  it('times out on a provider that hangs', async () => {
    emulator.setFault('hang');
    const started = Date.now();
    expect(await failureOf(client(150).lookup(SANDBOX_VPN_IP))).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('proxycheck client answer handling', () => {
  const answering = (status: number, body: string) =>
    createProxycheckClient({ baseUrl: 'http://provider.invalid/v2', timeoutMs: 1000, fetch: async () => new Response(body, { status }) });

  it.each([
    ['not JSON', 200, '<html>oops</html>', 'malformed'],
    ['no status', 200, '{"1.2.3.4":{"proxy":"no"}}', 'malformed'],
    ['no result', 200, '{"status":"ok"}', 'malformed'],
    ['unknown status', 200, '{"status":"maybe","1.2.3.4":{"proxy":"no"}}', 'malformed'],
    ['HTTP 500 with text', 500, 'boom', 'http'],
    ['HTTP 429 denied body', 429, '{"status":"denied","message":"Too many requests"}', 'denied'],
    ['denied with 200', 200, '{"status":"denied","message":"Your key is not valid for 1.2.3.4"}', 'denied'],
  ])('%s is a failure', async (_label, status, body, reason) => {
    await expect(answering(status, body).lookup('1.2.3.4')).rejects.toMatchObject({ reason });
  });

  it('never puts the address in the error message', async () => {
    await expect(
      answering(200, '{"status":"denied","message":"Your key is not valid for 1.2.3.4"}').lookup('1.2.3.4'),
    ).rejects.toMatchObject({
      message: 'Your key is not valid for [ip]',
    });
  });

  it('accepts a warning with a result, and a result keyed differently', async () => {
    await expect(
      answering(200, '{"status":"warning","message":"near quota","1.2.3.4":{"proxy":"yes","type":"Hosting","provider":"OVH SAS"}}').lookup(
        '1.2.3.4',
      ),
    ).resolves.toEqual({
      verdict: 'datacenter',
      provider: 'OVH SAS',
      countryCode: null,
      type: 'Hosting',
    });
    await expect(
      answering(200, '{"status":"ok","2001:db8::1":{"proxy":"no","vpn":"yes","type":"Business"}}').lookup('2001:0db8::1'),
    ).resolves.toMatchObject({ verdict: 'vpn' });
  });

  it('reports a network failure', async () => {
    const client = createProxycheckClient({
      baseUrl: 'http://provider.invalid/v2',
      timeoutMs: 1000,
      fetch: async () => {
        throw new TypeError('fetch failed');
      },
    });
    await expect(client.lookup('1.2.3.4')).rejects.toMatchObject({ reason: 'network' });
  });
});
