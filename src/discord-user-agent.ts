import fs from 'node:fs';
import path from 'node:path';

/**
 * Where the project lives, for the URL part of Discord's User-Agent. The project has no
 * published homepage or repository field in package.json; this constant names it, whatever
 * the deployment's PUBLIC_URL is (an operator's address is not the bot library's).
 */
export const PROJECT_URL = 'https://github.com/gatekeeper-discord/gatekeeper';

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

/**
 * `DiscordBot ($url, $versionNumber)`: the User-Agent Discord asks every API request to carry
 * (requests without one may be blocked). The OAuth2 calls send it as is; the bot's REST clients
 * send @discordjs/rest's own `DiscordBot (…)` followed by this one (`discordRestUserAgentAppendix`).
 */
export const DISCORD_USER_AGENT = `DiscordBot (${PROJECT_URL}, ${packageVersion()})`;
