import fs from 'node:fs';
import path from 'node:path';

/**
 * The URL in Discord's User-Agent names who runs the bot. Gatekeeper is self-hosted and has
 * no public homepage of its own, so each installation names itself: its PUBLIC_URL, set at
 * start (`setDiscordUserAgentSite`). Until then, and in sandbox mode without PUBLIC_URL
 * (where nothing reaches Discord), it is this machine.
 */
const LOCAL_SITE = 'http://localhost';
let site = LOCAL_SITE;

/** Names this installation's site in every later Discord request (null: this machine). */
export function setDiscordUserAgentSite(publicUrl: string | null | undefined): void {
  site = publicUrl ?? LOCAL_SITE;
}

/** package.json's version, read once: found by walking up from this file (src/ or dist/src/). */
function packageVersion(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'package.json');
    if (fs.existsSync(candidate)) {
      const pkg = JSON.parse(fs.readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'gatekeeper' && pkg.version) return pkg.version;
    }
    if (path.dirname(dir) === dir) throw new Error('gatekeeper: package.json not found above ' + __dirname);
  }
}

const VERSION = packageVersion();

/** The product token after Discord's required part: how the emulator tells the product's requests from a test's probes. */
export const PRODUCT_TOKEN = `Gatekeeper/${VERSION}`;

/**
 * `DiscordBot ($url, $versionNumber)`: the User-Agent Discord asks every API request to carry
 * (requests without one may be blocked), followed by the product's token. The OAuth2 calls send
 * it as is; the bot's REST clients send @discordjs/rest's own `DiscordBot (…)` followed by this one.
 * Read when a client is built or a call is made, so it names the site set at start.
 */
export function discordUserAgent(): string {
  return `DiscordBot (${site}, ${VERSION}) ${PRODUCT_TOKEN}`;
}
