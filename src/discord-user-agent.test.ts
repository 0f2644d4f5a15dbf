import { discordUserAgent, PRODUCT_TOKEN, setDiscordUserAgentSite } from './discord-user-agent';

describe("Discord's User-Agent", () => {
  afterEach(() => setDiscordUserAgentSite(null));

  it('names the installation set at start, in the DiscordBot ($url, $versionNumber) form, then the product', () => {
    setDiscordUserAgentSite('https://verify.example.com');
    expect(discordUserAgent()).toMatch(/^DiscordBot \(https:\/\/verify\.example\.com, \d+\.\d+\.\d+\) Gatekeeper\/\d+\.\d+\.\d+$/);
    expect(discordUserAgent().endsWith(PRODUCT_TOKEN)).toBe(true);
  });

  it('names this machine until a site is set', () => {
    expect(discordUserAgent()).toMatch(/^DiscordBot \(http:\/\/localhost, /);
  });
});
