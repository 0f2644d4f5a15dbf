import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createManualClock } from '../../clock';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { hashIp } from '../network';
import { createOfflineSignals, type OfflineSignals } from './offline-lists';
import { createProxycheckClient } from './proxycheck.client';
import {
  createProxycheckEmulator,
  SANDBOX_CLEAN_IP,
  SANDBOX_PROXY_IP,
  SANDBOX_VPN_IP,
  type ProxycheckEmulator,
} from './proxycheck-emulator';
import { createVpnCheckService, type ProviderCall, type VpnCheckServiceDeps } from './vpn-check.service';
import { decideVpnOutcome } from './vpn-outcome';
import { vpnCacheRepository, type VpnCacheRepository } from './vpn-cache.repository';

const key = Buffer.alloc(32, 3);
const HOUR = 3_600_000;
const TOR_IP = '192.0.2.66';
const DATACENTER_IP = '198.51.100.200';

describeEngines('VPN check pipeline', (getDatabase) => {
  let emulator: ProxycheckEmulator;
  let offline: OfflineSignals;
  let listDir: string;
  const clock = createManualClock(new Date('2026-01-15T12:00:00Z'));

  beforeAll(async () => {
    emulator = await createProxycheckEmulator();
    listDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gk-vpncheck-'));
    fs.writeFileSync(path.join(listDir, 'tor.txt'), `${TOR_IP}\n`);
    fs.writeFileSync(path.join(listDir, 'dc.txt'), '198.51.100.192/26\n');
    offline = createOfflineSignals({ paths: { tor: [path.join(listDir, 'tor.txt')], datacenter: [path.join(listDir, 'dc.txt')] }, clock });
  });
  afterAll(async () => {
    await emulator.close();
    fs.rmSync(listDir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await resetDatabase(getDatabase());
    emulator.setFault('none');
    emulator.clearRequests();
  });

  function service(overrides: Partial<VpnCheckServiceDeps> = {}) {
    return createVpnCheckService({
      db: getDatabase().db,
      cache: vpnCacheRepository,
      proxycheck: createProxycheckClient({ baseUrl: emulator.url, apiKey: 'k', timeoutMs: 300 }),
      offline,
      clock,
      cacheTtlMs: 24 * HOUR,
      ...overrides,
    });
  }
  const input = (ip: string, browserTimezone?: string) => ({ ip, ipHash: hashIp(key, ip).ipHash, browserTimezone });

  it('detects a VPN through the provider, then answers from the cache without asking again', async () => {
    const calls: ProviderCall[] = [];
    const vpn = service({ onProviderCall: (call) => calls.push(call) });
    await expect(vpn.check(input(SANDBOX_VPN_IP, 'Europe/Amsterdam'))).resolves.toEqual({
      verdict: 'vpn',
      provider: 'Sandbox VPN',
      source: 'proxycheck',
      checkFailed: false,
      timezoneMismatch: false,
      countryCode: 'NL',
    });
    await expect(vpn.check(input(SANDBOX_VPN_IP, 'Europe/Amsterdam'))).resolves.toMatchObject({
      verdict: 'vpn',
      provider: 'Sandbox VPN',
      source: 'cache',
    });
    expect(emulator.requests).toHaveLength(1);
    expect(calls).toEqual([{ ok: true, durationMs: expect.any(Number) }]);

    const rows = await getDatabase().query<Record<string, unknown>>('select * from vpn_cache');
    expect(rows.rows).toHaveLength(1);
    expect(JSON.stringify(rows.rows)).not.toContain(SANDBOX_VPN_IP);
  });

  it('asks again once the cached verdict expires', async () => {
    const vpn = service({ cacheTtlMs: HOUR });
    await vpn.check(input(SANDBOX_PROXY_IP));
    clock.advance(HOUR + 1);
    await expect(vpn.check(input(SANDBOX_PROXY_IP))).resolves.toMatchObject({ verdict: 'proxy', source: 'proxycheck' });
    expect(emulator.requests).toHaveLength(2);
    expect(await vpnCacheRepository.purgeExpired(getDatabase().db, new Date(clock.now().getTime() + 2 * HOUR))).toBe(1);
  });

  it('shares one provider call between concurrent checks of one address', async () => {
    const vpn = service();
    const results = await Promise.all([1, 2, 3, 4].map(() => vpn.check(input(SANDBOX_VPN_IP))));
    expect(results.every((r) => r.verdict === 'vpn')).toBe(true);
    expect(emulator.requests).toHaveLength(1);
  });

  it('reports clean addresses without keeping the ISP name, and flags a time zone far from the country', async () => {
    await expect(service().check(input(SANDBOX_CLEAN_IP, 'Asia/Tokyo'))).resolves.toEqual({
      verdict: 'clean',
      provider: null,
      source: 'proxycheck',
      checkFailed: false,
      timezoneMismatch: true,
      countryCode: 'US',
    });
    await expect(service().check(input(SANDBOX_CLEAN_IP, 'America/Denver'))).resolves.toMatchObject({ timezoneMismatch: false });
  });

  it('catches listed Tor exits and datacenter ranges the provider calls clean', async () => {
    await expect(service().check(input(TOR_IP))).resolves.toMatchObject({
      verdict: 'tor',
      provider: 'Tor',
      source: 'tor-list',
      checkFailed: false,
    });
    // the provider's VPN answer wins over the datacenter list
    await expect(service().check(input(DATACENTER_IP))).resolves.toMatchObject({ verdict: 'vpn', source: 'proxycheck' });
    await expect(service({ proxycheck: null, cacheTtlMs: 0 }).check(input(DATACENTER_IP))).resolves.toMatchObject({
      verdict: 'datacenter',
      source: 'datacenter-list',
      checkFailed: false,
    });
  });

  it.each(['error', 'denied', 'unavailable', 'hang'] as const)(
    'on a %s fault: unknown + checkFailed, policy decides, nothing cached',
    async (fault) => {
      emulator.setFault(fault);
      const result = await service().check(input(SANDBOX_VPN_IP));
      expect(result).toEqual({ verdict: 'unknown', provider: null, source: 'none', checkFailed: true, timezoneMismatch: false });
      expect(decideVpnOutcome(result, 'allow')).toBe('verified');
      expect(decideVpnOutcome(result, 'limited')).toBe('limited_access');
      expect(decideVpnOutcome(result, 'deny')).toBe('denied');
      expect((await getDatabase().query('select * from vpn_cache')).rows).toHaveLength(0);
    },
  );

  it('still catches a listed Tor exit while the provider is down', async () => {
    emulator.setFault('error');
    await expect(service().check(input(TOR_IP))).resolves.toMatchObject({ verdict: 'tor', source: 'tor-list', checkFailed: true });
  });

  it('without a provider and without a list match, the address is clean and nothing failed', async () => {
    await expect(service({ proxycheck: null }).check(input(SANDBOX_VPN_IP))).resolves.toEqual({
      verdict: 'clean',
      provider: null,
      source: 'none',
      checkFailed: false,
      timezoneMismatch: false,
    });
  });

  it('never throws, even when the cache and the lists fail', async () => {
    const broken: VpnCacheRepository = {
      find: async () => {
        throw new Error('database down');
      },
      save: async () => {
        throw new Error('database down');
      },
      purgeExpired: async () => 0,
    };
    const failingLists: OfflineSignals = {
      check: async () => {
        throw new Error('disk gone');
      },
      reload: async () => {
        throw new Error('disk gone');
      },
    };
    await expect(service({ cache: broken, offline: failingLists }).check(input(SANDBOX_VPN_IP))).resolves.toMatchObject({
      verdict: 'vpn',
      source: 'proxycheck',
    });
    emulator.setFault('hang');
    await expect(service({ cache: broken, offline: failingLists }).check(input(SANDBOX_CLEAN_IP))).resolves.toMatchObject({
      verdict: 'unknown',
      checkFailed: true,
    });
  });

  describe('a cache read started early (the sign-in starts it before asking Discord)', () => {
    /** the cache repository, counting its reads */
    function countingCache() {
      const reads: string[] = [];
      const cache: VpnCacheRepository = {
        ...vpnCacheRepository,
        find: (db, ipHash, now) => (reads.push(ipHash), vpnCacheRepository.find(db, ipHash, now)),
      };
      return { cache, reads };
    }

    it('answers the check from the early read, without reading the cache again', async () => {
      await service().check(input(SANDBOX_VPN_IP));
      const { cache, reads } = countingCache();
      const vpn = service({ cache });
      const address = input(SANDBOX_VPN_IP);
      const earlyCacheRead = vpn.readCacheEarly(address);
      await expect(vpn.check({ ...address, earlyCacheRead })).resolves.toMatchObject({ verdict: 'vpn', source: 'cache' });
      expect(reads).toEqual([address.ipHash]);
      expect(emulator.requests).toHaveLength(1);
    });

    it('asks the provider after an early read that found nothing, and caches its verdict', async () => {
      const vpn = service();
      const address = input(SANDBOX_PROXY_IP);
      const earlyCacheRead = vpn.readCacheEarly(address);
      await expect(vpn.check({ ...address, earlyCacheRead })).resolves.toMatchObject({ verdict: 'proxy', source: 'proxycheck' });
      await expect(vpn.check(address)).resolves.toMatchObject({ verdict: 'proxy', source: 'cache' });
      expect(emulator.requests).toHaveLength(1);
    });

    it('ignores an early read of another address (a sandbox user on a simulated VPN)', async () => {
      await service().check(input(SANDBOX_VPN_IP));
      const { cache, reads } = countingCache();
      const vpn = service({ cache });
      const earlyCacheRead = vpn.readCacheEarly(input(SANDBOX_VPN_IP));
      await expect(vpn.check({ ...input(SANDBOX_CLEAN_IP), earlyCacheRead })).resolves.toMatchObject({
        verdict: 'clean',
        source: 'proxycheck',
      });
      expect(reads).toEqual([input(SANDBOX_VPN_IP).ipHash, input(SANDBOX_CLEAN_IP).ipHash]);
    });

    it('never fails: a failed early read is a miss, and the provider is asked', async () => {
      const broken: VpnCacheRepository = { ...vpnCacheRepository, find: async () => Promise.reject(new Error('database down')) };
      const vpn = service({ cache: broken });
      const earlyCacheRead = vpn.readCacheEarly(input(SANDBOX_VPN_IP));
      await expect(earlyCacheRead.read).resolves.toBeNull();
      await expect(vpn.check({ ...input(SANDBOX_VPN_IP), earlyCacheRead })).resolves.toMatchObject({
        verdict: 'vpn',
        source: 'proxycheck',
      });
    });

    it('reads nothing for a loopback or private address, which is never looked up', async () => {
      const { cache, reads } = countingCache();
      await expect(service({ cache }).readCacheEarly(input('10.0.0.8')).read).resolves.toBeNull();
      expect(reads).toEqual([]);
    });
  });

  it('does not spend provider quota on loopback or private addresses', async () => {
    await expect(service().check(input('127.0.0.1'))).resolves.toEqual({
      verdict: 'clean',
      provider: null,
      source: 'none',
      checkFailed: false,
      timezoneMismatch: false,
    });
    await expect(service().check(input('10.0.0.8'))).resolves.toMatchObject({ verdict: 'clean', source: 'none' });
    expect(emulator.requests).toHaveLength(0);
  });
});
