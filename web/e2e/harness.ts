/**
 * End-to-end harness: the whole product in-process (sandbox mode: Discord and proxycheck
 * emulators, PGlite), Debian's Chromium driven by playwright-core, and a screenshot helper.
 *
 * One product and one browser per test file (`useE2E()` in a describe block), one browser
 * context per scenario (a context is one visitor: its own cookies, same device fingerprint).
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Locator,
  type Page,
  type Request,
} from 'playwright-core';
import type { Database } from '../../src/db/client';
import type { GatekeeperHandle } from '../../src/server';
import { createTestDatabase } from '../../src/test-support/database';
import { startTestGatekeeper } from '../../src/test-support/gatekeeper';

export const SETUP_CODE = 'TEST-SETUP-CODE';
/** How long a locator waits for something to show before the step fails. */
export const STEP_TIMEOUT_MS = 10_000;

const ROOT = path.resolve(__dirname, '../..');
export const SCREENSHOT_DIR = path.join(ROOT, 'test-results', 'screenshots');

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

export interface E2E {
  handle: GatekeeperHandle;
  database: Database;
  browser: Browser;
  /** the site, e.g. http://127.0.0.1:41234 */
  url: string;
  emulator: NonNullable<GatekeeperHandle['discord']['emulator']>;
  /** A fresh browser context (a fresh visitor); closed after the file. */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  /** Runs every queued Discord action now (guild joins, roles, log lines). */
  drainOutbox(): Promise<void>;
}

/**
 * Starts the product and the browser before the file's tests and stops them after.
 * `env` goes to the product (e.g. TRUST_PROXY so a context can pick its client address).
 */
export function useE2E(env: Record<string, string> = {}): () => E2E {
  let current: E2E | undefined;
  const contexts: BrowserContext[] = [];
  // what Chromium refused under the Content-Security-Policy: the suite fails on any
  const cspViolations: string[] = [];

  beforeAll(async () => {
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    if (!fs.existsSync(path.join(ROOT, 'dist', 'web', 'index.html'))) {
      throw new Error('dist/web/index.html is missing: run `node scripts/ensure-build.mjs` before the e2e tests');
    }
    const [database, browser] = await Promise.all([createTestDatabase('pglite'), launchBrowser()]);
    let handle: GatekeeperHandle;
    try {
      ({ handle } = await startTestGatekeeper(database, env));
    } catch (error) {
      await browser.close();
      await database.close();
      throw error;
    }
    const emulator = handle.discord.emulator;
    if (!emulator) throw new Error('the product did not start in sandbox mode');
    current = {
      handle,
      database,
      browser,
      url: handle.url,
      emulator,
      async newContext(options = {}) {
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
        context.setDefaultTimeout(STEP_TIMEOUT_MS);
        context.setDefaultNavigationTimeout(STEP_TIMEOUT_MS);
        context.on('console', (message) => {
          if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
        });
        countRequests(context);
        contexts.push(context);
        return context;
      },
      drainOutbox: () => handle.services.outboxWorker.drain(),
    };
  }, 60_000);

  afterAll(async () => {
    for (const context of contexts.splice(0)) await context.close().catch(() => undefined);
    await current?.browser.close().catch(() => undefined);
    await current?.handle.stop();
    await current?.database.close();
    current = undefined;
    expect(cspViolations).toEqual([]);
  }, 30_000);

  return () => {
    if (!current) throw new Error('the e2e product is not running (did beforeAll fail?)');
    return current;
  };
}

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);

/** Saves `test-results/screenshots/<test>-<step>.png` (the full page, or what the viewport shows) and returns its path. */
export async function screenshot(page: Page, test: string, step: string, options: { fullPage?: boolean } = {}): Promise<string> {
  const file = path.join(SCREENSHOT_DIR, `${slug(test)}-${slug(step)}.png`);
  await page.screenshot({ path: file, fullPage: options.fullPage ?? true });
  return file;
}

/** Waits until the locator is visible (fails the step after STEP_TIMEOUT_MS). */
export async function visible(locator: Locator, timeout = STEP_TIMEOUT_MS): Promise<Locator> {
  await locator.waitFor({ state: 'visible', timeout });
  return locator;
}

/** Waits until the locator is gone or hidden. */
export async function hidden(locator: Locator, timeout = STEP_TIMEOUT_MS): Promise<void> {
  await locator.waitFor({ state: 'hidden', timeout });
}

/** A visible h1 with exactly this text. */
export function heading(page: Page, name: string): Promise<Locator> {
  return visible(page.getByRole('heading', { level: 1, name, exact: true }));
}

/**
 * A toast's text. Radix repeats toast text in a visually hidden live region, so the
 * match is exact and the first (the visible toast) is taken.
 */
export function toast(page: Page, text: string): Promise<Locator> {
  return visible(page.getByText(text, { exact: true }).first());
}

/** Polls `read` until `accept` holds; throws with the last value seen. */
export async function eventually<T>(
  read: () => T | Promise<T>,
  accept: (value: T) => boolean,
  what: string,
  timeout = STEP_TIMEOUT_MS,
): Promise<T> {
  const deadline = Date.now() + timeout;
  let last: T;
  for (;;) {
    last = await read();
    if (accept(last)) return last;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Requests under way, by page: counted for every page of a context made by `newContext()`, popups included. */
const requestsUnderWay = new WeakMap<Page, number>();

function countRequests(context: BrowserContext): void {
  const count = (request: Request, change: 1 | -1) => {
    let page: Page | null;
    try {
      page = request.frame().page();
    } catch {
      return; // a service worker's request belongs to no page
    }
    requestsUnderWay.set(page, (requestsUnderWay.get(page) ?? 0) + change);
  };
  context.on('request', (request) => count(request, 1));
  // a redirect finishes its request and starts a new one
  context.on('requestfinished', (request) => count(request, -1));
  context.on('requestfailed', (request) => count(request, -1));
}

/**
 * How long the page must have had no request under way to count as settled. Playwright's 'networkidle'
 * waits 500 ms after the last request, a fixed half second per call; a page of this product starts its next
 * request within milliseconds of the last answer (a fetch once the data it depends on arrived and rendered),
 * so 200 ms still leaves a busy machine's slow renderer ample room.
 */
const NETWORK_QUIET_MS = 200;

/**
 * Waits until the page has loaded and then had no request under way for NETWORK_QUIET_MS: its data
 * fetched and rendered, before a layout is measured or a screenshot taken. Counts the page's requests
 * from its context's start (`newContext()`), so a request already under way when this is called counts.
 */
export async function networkQuiet(page: Page, timeout = STEP_TIMEOUT_MS): Promise<void> {
  await page.waitForLoadState('load', { timeout });
  const deadline = Date.now() + timeout;
  let quietSince = Date.now();
  for (;;) {
    const now = Date.now();
    if ((requestsUnderWay.get(page) ?? 0) > 0) quietSince = now;
    else if (now - quietSince >= NETWORK_QUIET_MS) return;
    if (now > deadline) throw new Error(`${page.url()} still had ${requestsUnderWay.get(page)} requests under way after ${timeout} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Clicks something that opens a URL either in the same tab or in a popup, and returns the
 * page that shows it (the same page, or the popup once it reached the URL).
 */
export async function followLink(page: Page, click: () => Promise<void>, urlPattern: RegExp): Promise<Page> {
  const context = page.context();
  const before = new Set(context.pages());
  await click();
  const target = await eventually(
    () =>
      urlPattern.test(page.url()) ? page : context.pages().find((candidate) => !before.has(candidate) && urlPattern.test(candidate.url())),
    (found) => found !== undefined,
    `a page at ${urlPattern}`,
  );
  await target!.waitForLoadState('domcontentloaded');
  return target!;
}

/**
 * Creates the owner account with the setup code and signs in as it in a fresh context:
 * the dashboard page, ready for a file's staff scenarios.
 */
export async function signInAsNewOwner(e2e: E2E, owner: { username: string; password: string }): Promise<Page> {
  const context = await e2e.newContext();
  const page = await context.newPage();
  const setup = await context.request.post(`${e2e.url}/api/setup-admin`, { data: { setupCode: SETUP_CODE, ...owner } });
  if (setup.status() !== 201) throw new Error(`setup-admin answered ${setup.status()}`);
  await page.goto(`${e2e.url}/admin/login`);
  await page.getByLabel('Username').fill(owner.username);
  await page.getByLabel('Password').fill(owner.password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.waitForURL(`${e2e.url}/admin`);
  return page;
}
