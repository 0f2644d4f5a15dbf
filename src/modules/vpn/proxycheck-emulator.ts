import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { normalizeIp } from '../network';
import { createAddressMatcher, parseAddressRange, type AddressMatcher } from './address-ranges';

/**
 * A stand-in for proxycheck.io v2, speaking its wire format over node:http, for sandbox
 * mode and tests. Deterministic (all in RFC 5737 documentation ranges, which never
 * route on the internet):
 *
 * | addresses          | answer                                        |
 * |--------------------|-----------------------------------------------|
 * | 198.51.100.0/24    | proxy yes, type VPN, provider 'Sandbox VPN' (NL) |
 * | 203.0.113.0/25     | proxy yes, type SOCKS5 ('Sandbox Proxy Hosting') |
 * | 192.0.2.0/24       | proxy no, Residential (US)                    |
 * | anything else      | proxy no, no country                          |
 *
 * plus whatever `markVpn` / `markProxy` add. Faults make it answer like the real
 * service on a bad day: 'error' and 'denied' are HTTP 200 bodies with that status,
 * 'unavailable' is an HTTP 503, 'hang' never answers.
 */

/** The address the sandbox uses for a visitor who ticks "I'm on a VPN". */
export const SANDBOX_VPN_IP = '198.51.100.23';
export const SANDBOX_VPN_PROVIDER = 'Sandbox VPN';
/** More sandbox addresses with a known verdict (the datacenter and Tor ones come from the shipped lists). */
export const SANDBOX_PROXY_IP = '203.0.113.23';
export const SANDBOX_DATACENTER_IP = '203.0.113.140';
export const SANDBOX_TOR_IP = '203.0.113.250';
export const SANDBOX_CLEAN_IP = '192.0.2.10';

const MAX_RECORDED_REQUESTS = 1000;

export type ProxycheckFault = 'none' | 'error' | 'denied' | 'unavailable' | 'hang';

export interface ProxycheckEmulatorRequest {
  ip: string;
  key: string | null;
  query: Record<string, string>;
}

export interface ProxycheckEmulator {
  /** base URL to configure as PROXYCHECK_URL, e.g. http://127.0.0.1:41234/v2 */
  url: string;
  /** the lookups received (the last 1000), oldest first */
  readonly requests: readonly ProxycheckEmulatorRequest[];
  setFault(fault: ProxycheckFault): void;
  markVpn(ipOrCidr: string, provider: string, countryCode?: string): void;
  markProxy(ipOrCidr: string, type?: string, provider?: string): void;
  clearRequests(): void;
  close(): Promise<void>;
}

interface Rule {
  matcher: AddressMatcher;
  entry: Record<string, unknown>;
}

const COUNTRIES: Record<string, { country: string; continent: string; continentcode: string; timezone: string }> = {
  NL: { country: 'Netherlands', continent: 'Europe', continentcode: 'EU', timezone: 'Europe/Amsterdam' },
  US: { country: 'United States', continent: 'North America', continentcode: 'NA', timezone: 'America/New_York' },
  DE: { country: 'Germany', continent: 'Europe', continentcode: 'EU', timezone: 'Europe/Berlin' },
  GB: { country: 'United Kingdom', continent: 'Europe', continentcode: 'EU', timezone: 'Europe/London' },
};

function geo(countryCode: string | undefined): Record<string, unknown> {
  if (!countryCode) return {};
  const known = COUNTRIES[countryCode] ?? { country: countryCode, continent: 'Unknown', continentcode: '--', timezone: 'UTC' };
  return {
    continent: known.continent,
    continentcode: known.continentcode,
    country: known.country,
    isocode: countryCode,
    timezone: known.timezone,
  };
}

function vpnEntry(provider: string, countryCode = 'NL'): Record<string, unknown> {
  return {
    asn: 'AS64500',
    provider,
    organisation: provider,
    ...geo(countryCode),
    proxy: 'yes',
    type: 'VPN',
    operator: { name: provider, url: 'https://vpn.example', anonymity: 'high', popularity: 'low', protocols: ['WireGuard', 'OpenVPN'] },
  };
}

function proxyEntry(type: string, provider: string): Record<string, unknown> {
  return { asn: 'AS64501', provider, organisation: provider, ...geo('DE'), proxy: 'yes', type, port: 1080 };
}

function rule(cidr: string, entry: Record<string, unknown>): Rule {
  const range = parseAddressRange(cidr);
  if (!range) throw new Error(`not an address or range: ${cidr}`);
  return { matcher: createAddressMatcher([range]), entry };
}

export async function createProxycheckEmulator(options: { port?: number; host?: string } = {}): Promise<ProxycheckEmulator> {
  const host = options.host ?? '127.0.0.1';
  let fault: ProxycheckFault = 'none';
  const requests: ProxycheckEmulatorRequest[] = [];
  // later rules win, so marks made by tests override the defaults
  const rules: Rule[] = [
    rule('192.0.2.0/24', {
      asn: 'AS64496',
      provider: 'Sandbox Broadband',
      organisation: 'Sandbox Broadband',
      ...geo('US'),
      proxy: 'no',
      type: 'Residential',
    }),
    rule('203.0.113.0/25', proxyEntry('SOCKS5', 'Sandbox Proxy Hosting')),
    rule('198.51.100.0/24', vpnEntry(SANDBOX_VPN_PROVIDER)),
  ];

  function answerFor(ip: string): Record<string, unknown> {
    for (let i = rules.length - 1; i >= 0; i--) {
      const { matcher, entry } = rules[i]!;
      if (matcher.contains(ip)) return entry;
    }
    return { proxy: 'no', type: 'Residential' };
  }

  function send(res: http.ServerResponse, status: number, body: unknown): void {
    const text = JSON.stringify(body, null, 4);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://emulator');
    const match = /^\/(?:v2\/)?([^/]+)$/.exec(url.pathname);
    if (req.method !== 'GET' || !match) {
      send(res, 404, { status: 'error', message: 'Not found.' });
      return;
    }
    const raw = decodeURIComponent(match[1]!);
    const query = Object.fromEntries(url.searchParams.entries());
    requests.push({ ip: raw, key: url.searchParams.get('key'), query });
    // a long-running sandbox must not grow without bound
    if (requests.length > MAX_RECORDED_REQUESTS) requests.splice(0, requests.length - MAX_RECORDED_REQUESTS);

    switch (fault) {
      case 'hang':
        return; // never answers; close() drops the connection
      case 'unavailable':
        res.writeHead(503, { 'content-type': 'text/html' });
        res.end('<html><body>503 Service Unavailable</body></html>');
        return;
      case 'denied':
        send(res, 200, {
          status: 'denied',
          message: '1000 free queries exhausted. Please try the API again tomorrow or purchase a higher paid plan.',
        });
        return;
      case 'error':
        send(res, 200, { status: 'error', message: 'Internal error, please try again shortly.' });
        return;
      case 'none':
        break;
    }

    const ip = normalizeIp(raw);
    if (!ip) {
      send(res, 200, { status: 'error', message: 'No valid IP Addresses supplied.' });
      return;
    }
    const entry = { ...answerFor(ip) };
    if (url.searchParams.get('asn') !== '1') {
      for (const key of ['asn', 'provider', 'organisation', 'continent', 'continentcode', 'country', 'isocode', 'timezone', 'operator'])
        delete entry[key];
    }
    send(res, 200, { status: 'ok', [raw]: entry });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://${host}:${port}/v2`,
    requests,
    setFault(next) {
      fault = next;
    },
    markVpn(ipOrCidr, provider, countryCode) {
      rules.push(rule(ipOrCidr, vpnEntry(provider, countryCode)));
    },
    markProxy(ipOrCidr, type = 'SOCKS5', provider = 'Sandbox Proxy Hosting') {
      rules.push(rule(ipOrCidr, proxyEntry(type, provider)));
    },
    clearRequests() {
      requests.length = 0;
    },
    close() {
      return new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
