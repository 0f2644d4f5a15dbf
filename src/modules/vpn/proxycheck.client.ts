import { z } from 'zod';
import type { VpnVerdict } from './vpn.types';
import { outboundFetch, type OutboundFetch, type OutboundResponse } from '../../outbound-http';

/**
 * proxycheck.io v2: GET `${baseUrl}/${ip}?key=…&vpn=1&asn=1` answers
 * `{ status: 'ok' | 'warning' | 'denied' | 'error', message?, '<ip>': { proxy: 'yes'|'no',
 * type, provider, operator?: { name }, isocode, country, … } }`. The service also answers
 * 'denied' and 'error' with HTTP 200 (quota spent, bad key, bad query), so the body's
 * status decides, not the HTTP code. 'warning' (e.g. close to the quota) still carries
 * a result and is a success.
 */

export type ProxycheckFailureReason = 'timeout' | 'network' | 'http' | 'denied' | 'error' | 'malformed';

export class ProxycheckError extends Error {
  constructor(
    readonly reason: ProxycheckFailureReason,
    message: string,
    readonly httpStatus?: number,
  ) {
    super(message);
    this.name = 'ProxycheckError';
  }
}

export interface ProxycheckAnswer {
  verdict: Extract<VpnVerdict, 'clean' | 'vpn' | 'proxy' | 'tor' | 'datacenter'>;
  provider: string | null;
  countryCode: string | null;
  /** proxycheck's own type label ('VPN', 'TOR', 'SOCKS5', 'Residential', …) */
  type: string | null;
}

export interface ProxycheckClient {
  lookup(ip: string): Promise<ProxycheckAnswer>;
}

export interface ProxycheckClientOptions {
  /** e.g. https://proxycheck.io/v2 (PROXYCHECK_URL) or the emulator's url */
  baseUrl: string;
  apiKey?: string;
  timeoutMs: number;
  fetch?: OutboundFetch;
}

const addressResult = z.looseObject({
  proxy: z.enum(['yes', 'no']).optional(),
  /** only with vpn=2 or vpn=3, where proxy and VPN are reported apart */
  vpn: z.enum(['yes', 'no']).optional(),
  type: z.string().optional(),
  provider: z.string().optional(),
  organisation: z.string().optional(),
  operator: z.looseObject({ name: z.string().optional() }).optional(),
  isocode: z.string().optional(),
});

const envelope = z.looseObject({
  status: z.string(),
  message: z.string().optional(),
});

type AddressResult = z.infer<typeof addressResult>;

const VPN_TYPES = new Set(['vpn', 'openvpn', 'wireguard']);
const DATACENTER_TYPES = new Set(['hosting', 'datacenter', 'data center']);

export function classifyAddressResult(result: AddressResult): ProxycheckAnswer['verdict'] {
  const type = (result.type ?? '').trim().toLowerCase();
  if (result.proxy === 'yes') {
    if (type === 'tor') return 'tor';
    if (VPN_TYPES.has(type)) return 'vpn';
    if (DATACENTER_TYPES.has(type)) return 'datacenter';
    return 'proxy';
  }
  if (result.vpn === 'yes') return 'vpn';
  return 'clean';
}

function toAnswer(result: AddressResult): ProxycheckAnswer {
  const iso = result.isocode?.trim().toUpperCase();
  return {
    verdict: classifyAddressResult(result),
    provider: result.operator?.name?.trim() || result.provider?.trim() || result.organisation?.trim() || null,
    countryCode: iso && /^[A-Z]{2}$/.test(iso) ? iso : null,
    type: result.type ?? null,
  };
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** Removes the visitor's address from a provider message before it goes anywhere near a log. */
function scrub(message: string, ip: string): string {
  return message.split(ip).join('[ip]').slice(0, 200);
}

export function createProxycheckClient(options: ProxycheckClientOptions): ProxycheckClient {
  const doFetch = options.fetch ?? outboundFetch;
  const base = trimSlash(options.baseUrl);

  return {
    async lookup(ip: string): Promise<ProxycheckAnswer> {
      const query = new URLSearchParams();
      if (options.apiKey) query.set('key', options.apiKey);
      query.set('vpn', '1');
      query.set('asn', '1');
      // the address is already validated and normalised: digits, hex, '.', ':' only
      const url = `${base}/${ip}?${query.toString()}`;

      let response: OutboundResponse;
      try {
        response = await doFetch(url, {
          method: 'GET',
          headers: { accept: 'application/json' },
          signal: AbortSignal.timeout(options.timeoutMs),
        });
      } catch (error) {
        const name = (error as { name?: string }).name;
        if (name === 'TimeoutError' || name === 'AbortError')
          throw new ProxycheckError('timeout', `no answer within ${options.timeoutMs} ms`);
        throw new ProxycheckError('network', 'request failed');
      }

      let body: unknown;
      try {
        const text = await response.text();
        body = text ? JSON.parse(text) : undefined;
      } catch (error) {
        const name = (error as { name?: string }).name;
        if (name === 'TimeoutError' || name === 'AbortError')
          throw new ProxycheckError('timeout', `no answer within ${options.timeoutMs} ms`);
        if (!response.ok) throw new ProxycheckError('http', `HTTP ${response.status}`, response.status);
        throw new ProxycheckError('malformed', 'answer is not JSON', response.status);
      }

      const head = envelope.safeParse(body);
      if (!head.success) {
        if (!response.ok) throw new ProxycheckError('http', `HTTP ${response.status}`, response.status);
        throw new ProxycheckError('malformed', 'answer has no status', response.status);
      }
      const { status, message } = head.data;
      if (status === 'denied' || status === 'error') {
        throw new ProxycheckError(status, scrub(message ?? status, ip), response.status);
      }
      if (!response.ok) throw new ProxycheckError('http', `HTTP ${response.status}`, response.status);
      if (status !== 'ok' && status !== 'warning')
        throw new ProxycheckError('malformed', `unknown status '${scrub(status, ip)}'`, response.status);

      const record = body as Record<string, unknown>;
      const result = addressResult.safeParse(record[ip] ?? findAddressEntry(record));
      if (!result.success || result.data.proxy === undefined)
        throw new ProxycheckError('malformed', 'answer has no result for the address', response.status);
      return toAnswer(result.data);
    },
  };
}

/** proxycheck keys the result by the address as it understood it; fall back to the one object entry. */
function findAddressEntry(record: Record<string, unknown>): unknown {
  const entries = Object.entries(record).filter(
    ([key, value]) => key !== 'status' && key !== 'message' && value !== null && typeof value === 'object' && 'proxy' in value,
  );
  return entries.length === 1 ? entries[0]![1] : undefined;
}
