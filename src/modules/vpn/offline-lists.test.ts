import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createManualClock } from '../../clock';
import { createOfflineSignals, defaultOfflineListPaths, OPERATOR_LIST_FOLDER, TOR_EXIT_LIST_FILE } from './offline-lists';
import { SANDBOX_CLEAN_IP, SANDBOX_DATACENTER_IP, SANDBOX_TOR_IP } from './proxycheck-emulator';

describe('offline VPN lists', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gk-vpnlists-'));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('ships defaults that classify the sandbox addresses', async () => {
    const offline = createOfflineSignals({ paths: defaultOfflineListPaths(dir), clock: createManualClock() });
    expect(await offline.check(SANDBOX_TOR_IP)).toBe('tor');
    expect(await offline.check(SANDBOX_DATACENTER_IP)).toBe('datacenter');
    expect(await offline.check(SANDBOX_CLEAN_IP)).toBeNull();
    const status = await offline.reload();
    expect(status.tor.invalidLines).toEqual([]);
    expect(status.datacenter.invalidLines).toEqual([]);
  });

  it("prefers the operator's copy in DATA_DIR/vpn-lists and picks up changes after the re-check interval", async () => {
    const clock = createManualClock();
    const offline = createOfflineSignals({ paths: defaultOfflineListPaths(dir), clock, recheckIntervalMs: 60_000 });
    expect(await offline.check('185.220.101.1')).toBeNull();

    const operatorFolder = path.join(dir, OPERATOR_LIST_FOLDER);
    fs.mkdirSync(operatorFolder);
    fs.writeFileSync(path.join(operatorFolder, TOR_EXIT_LIST_FILE), '# fresh list\n185.220.101.0/24\n');
    expect(await offline.check('185.220.101.1')).toBeNull(); // not re-checked yet
    clock.advance(60_001);
    expect(await offline.check('185.220.101.1')).toBe('tor');
    expect(await offline.check(SANDBOX_TOR_IP)).toBeNull(); // the operator's copy replaces the shipped one

    fs.writeFileSync(path.join(operatorFolder, TOR_EXIT_LIST_FILE), '# shrunk\n185.220.101.2\nbad line\n');
    const status = await offline.reload();
    expect(status.tor).toMatchObject({ entries: 1, invalidLines: [3] });
    expect(await offline.check('185.220.101.1')).toBeNull();
    expect(await offline.check('185.220.101.2')).toBe('tor');
  });

  it('treats missing files as empty lists', async () => {
    const offline = createOfflineSignals({ paths: { tor: [path.join(dir, 'nope.txt')], datacenter: [] }, clock: createManualClock() });
    expect(await offline.check(SANDBOX_TOR_IP)).toBeNull();
    expect((await offline.reload()).tor).toEqual({ file: null, entries: 0, invalidLines: [] });
  });

  it('checks the Tor list before the datacenter list', async () => {
    const both = path.join(dir, 'both.txt');
    fs.writeFileSync(both, '192.0.2.0/24\n');
    const offline = createOfflineSignals({ paths: { tor: [both], datacenter: [both] }, clock: createManualClock() });
    expect(await offline.check('192.0.2.1')).toBe('tor');
  });
});
