import { COUNTRY_TIMEZONES } from './country-timezones';

const formatters = new Map<string, Intl.DateTimeFormat | null>();

function formatterFor(zone: string): Intl.DateTimeFormat | null {
  if (!formatters.has(zone)) {
    try {
      formatters.set(zone, new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' }));
    } catch {
      formatters.set(zone, null); // not a zone this runtime knows
    }
  }
  return formatters.get(zone) ?? null;
}

/** Minutes east of UTC of a zone at an instant, or null for an unknown zone. */
export function utcOffsetMinutes(zone: string, at: Date): number | null {
  const formatter = formatterFor(zone);
  if (!formatter) return null;
  const name = formatter.formatToParts(at).find((part) => part.type === 'timeZoneName')?.value ?? '';
  const match = /^GMT(?:([+-])(\d{2}):?(\d{2}))?$/.exec(name);
  if (!match) return null;
  if (!match[1]) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === '-' ? -minutes : minutes;
}

/** Zones that say nothing about where a visitor is (privacy browsers report UTC). */
const NEUTRAL_ZONE = /^(Etc\/.*|UTC|GMT|Universal|Zulu|UCT)$/i;
const ZONE_IN_TEXT = /[A-Za-z]+(?:\/[A-Za-z0-9_+-]+)+/;

/** The IANA zone in a fingerprint's timezone field ('Europe/Berlin', or a descriptor containing it). */
export function extractTimeZone(value: string | null | undefined): string | null {
  if (!value) return null;
  const text = value.trim();
  if (formatterFor(text)) return text;
  const found = ZONE_IN_TEXT.exec(text)?.[0];
  return found && formatterFor(found) ? found : null;
}

/**
 * True when the browser's zone is valid, not neutral, and its current UTC offset is
 * none of the offsets the IP's country uses. Unknown country, unknown or neutral zone:
 * false (no signal). A weak flag only: travellers and misconfigured clocks exist.
 */
export function isTimezoneMismatch(browserTimezone: string | null | undefined, countryCode: string | null | undefined, at: Date): boolean {
  const zone = extractTimeZone(browserTimezone);
  const zones = countryCode ? COUNTRY_TIMEZONES[countryCode.toUpperCase()] : undefined;
  if (!zone || !zones || NEUTRAL_ZONE.test(zone)) return false;
  const offset = utcOffsetMinutes(zone, at);
  if (offset === null) return false;
  const countryOffsets = zones.map((z) => utcOffsetMinutes(z, at)).filter((o): o is number => o !== null);
  return countryOffsets.length > 0 && !countryOffsets.includes(offset);
}
