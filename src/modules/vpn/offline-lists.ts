import fs from 'node:fs';
import path from 'node:path';
import type { Clock } from '../../clock';
import type { Logger } from '../../logger';
import { createAddressMatcher, parseAddressList, type AddressMatcher } from './address-ranges';

/**
 * The offline VPN signals that need no network (docs/behaviour.md#vpn-and-proxy-detection): a Tor exit list and
 * datacenter ranges, read from text files the operator can replace at any time
 * (format: address-ranges.ts and README.md). Each file is re-checked at most once per
 * `recheckIntervalMs` and re-read when its size or mtime changed, so a refreshed
 * list takes effect without a restart. A missing or unreadable file is an empty list.
 */

export const TOR_EXIT_LIST_FILE = 'tor-exit-nodes.txt';
export const DATACENTER_LIST_FILE = 'datacenter-ranges.txt';
/** Operator copies in DATA_DIR take precedence over the shipped defaults. */
export const OPERATOR_LIST_FOLDER = 'vpn-lists';

export type OfflineSignal = 'tor' | 'datacenter';

export interface OfflineListPaths {
  /** candidate files, first existing wins (checked again on every re-check) */
  tor: string[];
  datacenter: string[];
}

export interface OfflineListStatus {
  file: string | null;
  entries: number;
  invalidLines: number[];
}

export interface OfflineSignals {
  /** 'tor' before 'datacenter' (a Tor exit is the stronger statement); null when neither list has it */
  check(ip: string): Promise<OfflineSignal | null>;
  /** re-reads both lists now (e.g. from a job after downloading fresh copies) */
  reload(): Promise<Record<OfflineSignal, OfflineListStatus>>;
}

/** The folder of the lists shipped with the code, from source or from the build (dist/src/…). */
export function shippedListFolder(): string {
  const candidates = [path.join(__dirname, 'lists'), path.resolve(__dirname, '../../../../src/modules/vpn/lists')];
  return candidates.find((dir) => fs.existsSync(path.join(dir, TOR_EXIT_LIST_FILE))) ?? candidates[0]!;
}

/** `DATA_DIR/vpn-lists/<file>` when the operator put one there, else the shipped default. */
export function defaultOfflineListPaths(dataDir: string): OfflineListPaths {
  const operator = path.join(dataDir, OPERATOR_LIST_FOLDER);
  const shipped = shippedListFolder();
  return {
    tor: [path.join(operator, TOR_EXIT_LIST_FILE), path.join(shipped, TOR_EXIT_LIST_FILE)],
    datacenter: [path.join(operator, DATACENTER_LIST_FILE), path.join(shipped, DATACENTER_LIST_FILE)],
  };
}

interface LoadedList {
  file: string | null;
  signature: string;
  matcher: AddressMatcher;
  invalidLines: number[];
  checkedAt: number;
}

const EMPTY = createAddressMatcher([]);

async function statFirst(files: string[]): Promise<{ file: string; signature: string } | null> {
  for (const file of files) {
    try {
      const stat = await fs.promises.stat(file);
      if (stat.isFile()) return { file, signature: `${file}:${stat.size}:${stat.mtimeMs}` };
    } catch {
      // not there: try the next candidate
    }
  }
  return null;
}

export function createOfflineSignals(options: {
  paths: OfflineListPaths;
  clock: Clock;
  recheckIntervalMs?: number;
  logger?: Logger;
}): OfflineSignals {
  const interval = options.recheckIntervalMs ?? 60_000;
  const lists = new Map<OfflineSignal, LoadedList>();
  const loading = new Map<OfflineSignal, Promise<LoadedList>>();

  async function load(kind: OfflineSignal, previous: LoadedList | undefined): Promise<LoadedList> {
    const now = options.clock.now().getTime();
    const found = await statFirst(options.paths[kind]);
    if (!found) {
      if (previous?.file !== null) options.logger?.warn({ list: kind }, 'offline VPN list not found; treating it as empty');
      return { file: null, signature: '', matcher: EMPTY, invalidLines: [], checkedAt: now };
    }
    if (previous && previous.signature === found.signature) return { ...previous, checkedAt: now };
    try {
      const parsed = parseAddressList(await fs.promises.readFile(found.file, 'utf8'));
      if (parsed.invalidLines.length > 0) {
        options.logger?.warn(
          { list: kind, file: found.file, invalidLines: parsed.invalidLines.slice(0, 20) },
          'offline VPN list has lines that are not addresses',
        );
      }
      return {
        file: found.file,
        signature: found.signature,
        matcher: createAddressMatcher(parsed.ranges),
        invalidLines: parsed.invalidLines,
        checkedAt: now,
      };
    } catch (error) {
      options.logger?.warn({ list: kind, file: found.file, err: error }, 'offline VPN list unreadable; keeping the previous copy');
      return previous ? { ...previous, checkedAt: now } : { file: null, signature: '', matcher: EMPTY, invalidLines: [], checkedAt: now };
    }
  }

  async function current(kind: OfflineSignal, force = false): Promise<LoadedList> {
    const list = lists.get(kind);
    if (!force && list && options.clock.now().getTime() - list.checkedAt < interval) return list;
    let pending = loading.get(kind);
    if (!pending) {
      pending = load(kind, list).finally(() => loading.delete(kind));
      loading.set(kind, pending);
    }
    const fresh = await pending;
    lists.set(kind, fresh);
    return fresh;
  }

  const status = (list: LoadedList): OfflineListStatus => ({
    file: list.file,
    entries: list.matcher.size,
    invalidLines: list.invalidLines,
  });

  return {
    async check(ip) {
      if ((await current('tor')).matcher.contains(ip)) return 'tor';
      if ((await current('datacenter')).matcher.contains(ip)) return 'datacenter';
      return null;
    },
    async reload() {
      const [tor, datacenter] = await Promise.all([current('tor', true), current('datacenter', true)]);
      return { tor: status(tor), datacenter: status(datacenter) };
    },
  };
}
