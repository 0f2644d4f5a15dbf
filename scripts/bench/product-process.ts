import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createDiscordEmulator,
  type DiscordEmulator,
  type InvalidRequestLimitOption,
  type RateLimitOption,
} from '../../src/discord-emulator';
import { createProxycheckEmulator, type ProxycheckEmulator } from '../../src/modules/vpn';
import type { BenchStore } from './engines';
import { readStat, statCpuSeconds, threadCpuSeconds } from './host-cpu';

/** The repository root, from the TypeScript sources (jest) or from dist/scripts/bench. */
export function repoRoot(): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest) && (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string }).name === 'gatekeeper') return dir;
  }
  throw new Error('cannot find the gatekeeper repository root');
}

/**
 * Discord and proxycheck.io emulated in THIS process, so the product under test can run
 * as a child process (and be killed) while the emulators keep their state: the
 * product is started in non-sandbox mode and pointed at them through its environment,
 * exactly as it would be pointed at discord.com (DISCORD_API_URL's origin serves the
 * OAuth2 authorize page).
 */
export interface ExternalDiscord {
  emulator: DiscordEmulator;
  proxycheck: ProxycheckEmulator;
  /** the product's environment for these emulators */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startExternalDiscord(
  options: { rateLimits?: RateLimitOption; invalidRequestLimit?: InvalidRequestLimitOption } = {},
): Promise<ExternalDiscord> {
  const emulator = await createDiscordEmulator({
    rateLimits: options.rateLimits ?? true,
    invalidRequestLimit: options.invalidRequestLimit ?? true,
  });
  const proxycheck = await createProxycheckEmulator();
  return {
    emulator,
    proxycheck,
    env: {
      DISCORD_BOT_TOKEN: emulator.application.botToken,
      DISCORD_CLIENT_ID: emulator.application.clientId,
      DISCORD_CLIENT_SECRET: emulator.application.clientSecret,
      DISCORD_GUILD_ID: emulator.guild.id,
      DISCORD_API_URL: emulator.apiBase,
      PROXYCHECK_URL: proxycheck.url,
      PROXYCHECK_API_KEY: 'bench-key',
    },
    async close() {
      await emulator.close();
      await proxycheck.close();
    },
  };
}

export interface ServerFlowStats {
  id: string;
  handlerMs: number;
  outboundMs: number;
  requests: number;
  routes: Record<string, number>;
}

export interface ProductProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  /** the last lines the product wrote (stdout and stderr) */
  output(): string[];
  /** every warning and error the product logged since it started, counted by message and reason */
  loggedProblems(): Record<string, number>;
  /** per-flow server timings (needs `probe: true`) */
  flowStats(): Promise<ServerFlowStats[]>;
  /**
   * Forgets the flows counted so far. `concurrent`: flows run in parallel from now on, so the probe
   * attributes Discord and proxycheck calls with an AsyncLocalStorage (costly: server-probe.cjs).
   */
  resetFlowStats(options?: { concurrent?: boolean }): Promise<void>;
  /** resident set size from /proc (kB → bytes), the primary and its workers together */
  rssBytes(): number;
  /** user + system CPU seconds the process (and its workers) have used so far */
  cpuSeconds(): number;
  /** user + system CPU seconds of the root process's main thread alone (JavaScript, HTTP), without its worker threads */
  mainThreadCpuSeconds(): number;
  /** SIGTERM and wait for the exit (graceful shutdown) */
  stop(): Promise<number | null>;
  /** SIGKILL and wait for the exit: the crash of the kill -9 drill */
  kill(): Promise<void>;
  exited: Promise<number | null>;
}

export interface StartProductOptions {
  store: BenchStore;
  /** extra environment (emulator variables, TRUST_PROXY, SERVICES …) */
  env?: Record<string, string>;
  /** 'dist' runs the build (bench); 'tsx' runs the TypeScript sources (jest drills) */
  entry?: 'dist' | 'tsx';
  /** preload scripts/bench/server-probe.cjs */
  probe?: boolean;
  /** write a V8 CPU profile into this folder when the process exits */
  cpuProfileDir?: string;
  readyTimeoutMs?: number;
  /** the port to listen on (0 = any; a restart passes the previous one) */
  port?: number;
  /** WEB_CONCURRENCY: worker processes behind a node:cluster primary (1 = one process) */
  webProcesses?: number;
}

/** The process and its descendants (a cluster primary's workers), from /proc. */
function processTree(rootPid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(`/proc/${entry}/stat`);
    if (stat) parents.set(Number(entry), Number(stat.fields[1]));
  }
  const tree = [rootPid];
  for (let i = 0; i < tree.length; i++) for (const [pid, parent] of parents) if (parent === tree[i]) tree.push(pid);
  return tree;
}

/** A port free right now (the OS picks it), so PUBLIC_URL can name the port before the product listens on it. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const READY = /Gatekeeper is running at (\S+)/;

/**
 * Node's arguments for running the product from its TypeScript sources (tsx's loader), which only
 * the tests do (the drills, the process and cluster tests). `--liftoff-only` keeps V8 from
 * recompiling PGlite's WebAssembly with its optimising compiler: a test's product lives seconds,
 * too short to win that compile back, which cost ~2 CPU-seconds of each start (5.4–6.2 → 3.8–4.3
 * CPU-seconds to 'running' on an existing data folder). The build (`npm start`, the bench) keeps V8's
 * defaults. Jest's own workers do not take the flag: they live the whole run, and a full run with
 * it was no faster.
 */
export function sourceEntryArgs(root = repoRoot()): string[] {
  // tsx's loader by its file URL: a bare 'tsx' would be looked up from the child's working folder
  const loader = pathToFileURL(createRequire(path.join(root, 'package.json')).resolve('tsx')).href;
  return ['--liftoff-only', '--import', loader, path.join(root, 'src/index.ts')];
}

export async function startProduct(options: StartProductOptions): Promise<ProductProcess> {
  const root = repoRoot();
  const entry = options.entry ?? 'dist';
  const args: string[] = [];
  if (options.probe) args.push('--require', path.join(root, 'scripts/bench/server-probe.cjs'));
  if (options.cpuProfileDir) args.push('--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`);
  if (entry === 'tsx') args.push(...sourceEntryArgs(root));
  else args.push(path.join(root, 'dist/src/index.js'));

  // outside sandbox mode the product needs PUBLIC_URL, so the port is chosen here
  const external = Boolean(options.env?.DISCORD_BOT_TOKEN) && !options.env?.PUBLIC_URL;
  const port = options.port ?? (external ? await freePort() : 0);
  const env: Record<string, string> = {
    ...(external ? { PUBLIC_URL: `http://127.0.0.1:${port}` } : {}),
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    SANDBOX_DISCORD_PORT: '0',
    LOG_LEVEL: 'warn',
    DATA_DIR: options.store.dataDir,
    ...(options.store.databaseUrl ? { DATABASE_URL: options.store.databaseUrl } : {}),
    ...(options.webProcesses ? { WEB_CONCURRENCY: String(options.webProcesses) } : {}),
    ...options.env,
  };
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  const lines: string[] = [];
  const problems: Record<string, number> = {};
  /** a JSON log line at warn (40) or above, by its message and, when it has one, its reason */
  const countProblem = (line: string) => {
    try {
      const entry = JSON.parse(line) as { level?: number; msg?: string; reason?: string };
      if ((entry.level ?? 0) < 40 || !entry.msg) return;
      const key = entry.reason ? `${entry.msg} (${entry.reason})` : entry.msg;
      problems[key] = (problems[key] ?? 0) + 1;
    } catch {
      // not a log line
    }
  };
  let url: string | undefined;
  let onReady: ((url: string) => void) | undefined;
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      lines.push(line);
      if (lines.length > 400) lines.splice(0, 100);
      if (line.startsWith('{')) countProblem(line);
      const match = READY.exec(line);
      if (match && !url) {
        url = match[1]!;
        onReady?.(url);
      }
    }
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const requests = new Map<string, (message: Record<string, unknown>) => void>();
  child.on('message', (message: Record<string, unknown>) => {
    const id = String(message.id ?? '');
    requests.get(id)?.(message);
    requests.delete(id);
  });
  const ask = <T>(type: string, pick: (message: Record<string, unknown>) => T, extra: Record<string, unknown> = {}): Promise<T> =>
    new Promise((resolve, reject) => {
      const id = crypto.randomBytes(6).toString('hex');
      const timer = setTimeout(() => {
        requests.delete(id);
        reject(new Error(`the product did not answer ${type} (is the probe loaded?)`));
      }, 10_000);
      requests.set(id, (message) => {
        clearTimeout(timer);
        resolve(pick(message));
      });
      child.send({ ...extra, type, id });
    });

  const readyTimeout = options.readyTimeoutMs ?? 600_000;
  const readyUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the product did not start within ${readyTimeout} ms:\n${lines.slice(-30).join('\n')}`)),
      readyTimeout,
    );
    onReady = (found) => {
      clearTimeout(timer);
      resolve(found);
    };
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the product exited (${code}) before it was ready:\n${lines.slice(-30).join('\n')}`));
    });
  });

  // summed over the primary and its workers when WEB_CONCURRENCY > 1
  const procStatus = (field: string) => {
    let total = 0;
    for (const pid of processTree(child.pid!)) {
      try {
        const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
        const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
        if (match) total += Number(match[1]) * 1024;
      } catch {
        // gone meanwhile
      }
    }
    return total > 0 ? total : Number.NaN;
  };
  return {
    url: readyUrl,
    pid: child.pid!,
    child,
    output: () => [...lines],
    loggedProblems: () => ({ ...problems }),
    flowStats: () => ask('bench:flows', (m) => m.flows as ServerFlowStats[]),
    resetFlowStats: (options = {}) => ask('bench:reset', () => undefined, { concurrent: options.concurrent === true }),
    rssBytes: () => procStatus('VmRSS'),
    cpuSeconds: () => {
      let total = 0;
      for (const pid of processTree(child.pid!)) {
        const stat = readStat(`/proc/${pid}/stat`);
        if (stat) total += statCpuSeconds(stat.fields);
      }
      return total > 0 ? total : Number.NaN;
    },
    // a process's main thread is the task whose id is the process's
    mainThreadCpuSeconds: () => threadCpuSeconds(child.pid!).get(child.pid!) ?? Number.NaN,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
    exited,
  };
}
