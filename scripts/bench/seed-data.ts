import type { Database } from '../../src/db/client';

/**
 * The bench data generator: members and verification attempts made in SQL with
 * generate_series (a million rows in seconds on PostgreSQL, a minute or two on PGlite),
 * shaped like a real community:
 *
 *  - households: every fifth member shares the previous member's address (siblings,
 *    flatmates); 40 households per /24 network;
 *  - shared devices: every seventh member signs in from the household's device (same
 *    fingerprint), the classic alt;
 *  - carrier NAT: ~3% of attempts come from one of 20 carrier addresses (~1,500 each);
 *  - popular device components: 30% of devices draw one of 20 canvases (phone models), 300
 *    WebGL renderers, 1,000 audio stacks, and a quarter have the default Windows fonts: the
 *    "popular hash" case the candidate lookup must survive;
 *  - VPN users: 5% of members are Limited Access, whose attempts keep no address or
 *    fingerprint (a Limited Access record keeps only the Discord ID and username);
 *  - 85% of members verified once, 7.5% twice, 7.5% have no attempt (manual entries).
 *
 * Hashes are hex like the product's (HMAC/SHA-256: 64 hex for addresses, 32 for
 * fingerprints and components), made with md5 so they are cheap to generate.
 */

export interface SeedSize {
  members: number;
  attempts: number;
}

const hex64 = (expr: string) => `(md5(${expr}) || md5((${expr}) || '~'))`;
const hex32 = (expr: string) => `md5(${expr})`;
/** a stable non-negative pseudo-random number per integer (PostgreSQL's own hash function) */
const hashOf = (expr: string) => `(hashint4((${expr})::int)::bigint & 2147483647)`;
/** 29 days in seconds: everything stays inside the 30-day retention window */
const SPREAD_SECONDS = 29 * 24 * 3600;

const FIRST = [
  'shadow',
  'pixel',
  'nova',
  'luna',
  'frost',
  'ember',
  'echo',
  'raven',
  'blaze',
  'storm',
  'cyber',
  'mystic',
  'neon',
  'ghost',
  'lucky',
  'sunny',
  'wolf',
  'fox',
  'tiger',
  'dragon',
];
const SECOND = [
  'hunter',
  'gamer',
  'cat',
  'king',
  'queen',
  'rider',
  'ninja',
  'wizard',
  'panda',
  'bear',
  'byte',
  'star',
  'moon',
  'dust',
  'fire',
  'wave',
  'rose',
  'leaf',
  'stone',
  'sky',
];
/** The Discord id of the g-th seeded member (1-based): a snowflake of 2020. */
const discordIdOf = (g: string) => `(700000000000000000 + ${g}::bigint * 4099)::text`;
const sqlArray = (values: string[]) => `array[${values.map((v) => `'${v}'`).join(',')}]`;

/** `count` members' rows (the community's mix); `series` picks which of them (default: all, in one statement). */
function membersSql(count: number, series = `generate_series(1, ${count})`): string {
  return `
insert into members (discord_id, username, avatar_url, status, source, rules_confirmed, rules_confirmed_at, manual_alt_status,
  is_linked_as_alt, alts_found, used_vpn, vpn_attempts, vpn_provider, verification_count, fingerprint_hash, network_hash,
  guild_access, verified_at, last_seen_at, created_at, updated_at)
select
  ${discordIdOf('g')},
  (${sqlArray(FIRST)})[1 + (h % 20)] || (array['_', '', '.', 'x', ''])[1 + ((h >> 5) % 5)] || (${sqlArray(SECOND)})[1 + ((h >> 8) % 20)]
    || (case when (h >> 13) % 3 = 0 then '' else ((h >> 15) % 10000)::text end),
  case when (h >> 2) % 10 < 6 then 'https://cdn.discordapp.com/avatars/' || g || '/' || md5(g::text) || '.png?size=128' end,
  case when h % 20 = 0 then 'limited_access' else 'verified' end,
  case when g > ${Math.floor(count * 0.925)} then 'manual' else 'web' end,
  (h >> 3) % 10 <> 0,
  case when (h >> 3) % 10 <> 0 then at end,
  case (h >> 4) % 200 when 0 then 'certain_alt' when 1 then 'suspected_alt' end,
  (h >> 6) % 50 = 0,
  case when (h >> 6) % 50 in (0, 1) then 1 + (h >> 9) % 3 else 0 end,
  h % 20 = 0,
  case when h % 20 = 0 then 1 else 0 end,
  case when h % 20 = 0 then 'Sandbox VPN' end,
  case when g > ${Math.floor(count * 0.85)} and g <= ${Math.floor(count * 0.925)} then 2 else 1 end,
  case when h % 20 <> 0 then ${hex32(`'fp' || (case when g % 7 = 0 then (case when g % 5 = 0 then g - 1 else g end) else g end)`)} end,
  case when h % 20 <> 0 then ${hex64(`'net' || ((case when g % 5 = 0 then g - 1 else g end) / 40)`)} end,
  case when h % 20 = 0 then 'limited' when (h >> 3) % 10 = 0 then 'pending' else 'verified' end,
  at, at, at, at
from (
  select g, ${hashOf('g')} as h, now() - make_interval(secs => (${hashOf('g + 7')} % ${SPREAD_SECONDS})) as at
  from ${series} g
) s`;
}

function attemptsSql(size: SeedSize, memberBase: number): string {
  const single = Math.min(size.attempts, Math.floor(size.members * 0.85));
  return `
insert into verification_attempts (member_id, ip_hash, network_hash, fingerprint_hash, canvas_hash, webgl_hash, audio_hash, fonts_hash,
  screen_hash, timezone_hash, language_hash, platform_hash, hardware_hash, vpn_verdict, vpn_provider, vpn_source, outcome, account_created_at, created_at)
with src as (
  select j, case when j <= ${single} then j else ${single} + 1 + ((j - ${single} - 1) / 2) % ${Math.max(1, size.members - single)} end as m
  from generate_series(1, ${size.attempts}) j
), x as (
  select j, m, ${hashOf('m')} as h, ${hashOf('j + 13')} as hj, case when m % 5 = 0 then m - 1 else m end as hh from src
), d as (
  select *, h % 20 = 0 as vpn, hj % 33 = 1 as cgnat, case when m % 7 = 0 then hh else m end as dev from x
)
select
  ${memberBase} + m,
  case when vpn then null when cgnat then ${hex64(`'cgnat' || (hj % 20)`)} else ${hex64(`'ip' || hh`)} end,
  case when vpn then null when cgnat then ${hex64(`'cgnet' || (hj % 20)`)} else ${hex64(`'net' || (hh / 40)`)} end,
  case when not vpn then ${hex32(`'fp' || dev`)} end,
  case when not vpn then ${hex32(`case when dev % 10 < 3 then 'canvas-popular' || (dev % 20) else 'canvas' || (dev % 50000) end`)} end,
  case when not vpn then ${hex32(`'webgl' || (dev % 300)`)} end,
  case when not vpn then ${hex32(`'audio' || (dev % 1000)`)} end,
  case when not vpn then ${hex32(`case when dev % 4 = 0 then 'fonts-windows-default' else 'fonts' || (dev % 2000) end`)} end,
  case when not vpn then ${hex32(`'screen' || (dev % 50)`)} end,
  case when not vpn then ${hex32(`'tz' || (dev % 30)`)} end,
  case when not vpn then ${hex32(`'lang' || (dev % 20)`)} end,
  case when not vpn then ${hex32(`'platform' || (dev % 10)`)} end,
  case when not vpn then ${hex32(`'hw' || (dev % 40)`)} end,
  case when vpn then 'vpn' else 'clean' end,
  case when vpn then 'Sandbox VPN' end,
  'proxycheck',
  case when vpn then 'limited_access' else 'verified' end,
  discord_account_created_at(${discordIdOf('m')}),
  now() - make_interval(secs => (hj % ${SPREAD_SECONDS}))
from d`;
}

/** Runs `work` with the table's secondary indexes dropped (not those a constraint, such as a foreign key, relies on), then rebuilds them exactly as they were. */
async function withoutIndexes(database: Database, table: string, work: () => Promise<void>): Promise<void> {
  const { rows } = await database.query<{ indexname: string; indexdef: string }>(
    `select i.indexname, i.indexdef from pg_indexes i
      where i.schemaname = 'public' and i.tablename = $1
        and not exists (select 1 from pg_constraint c where c.conname = i.indexname or c.conindid = format('%I.%I', i.schemaname, i.indexname)::regclass)`,
    [table],
  );
  for (const row of rows) await database.exec(`drop index "${row.indexname}"`);
  try {
    await work();
  } finally {
    for (const row of rows) await database.exec(row.indexdef);
  }
}

/**
 * `joins` more members of the same mix, one statement each, as verifications add them, after the
 * seed's VACUUM: the state a community is in between two runs of the hourly job (PGlite has no
 * autovacuum), e.g. after a raid. New rows' trigrams then wait on the search indexes' pending
 * lists, which every search reads (migration 0022).
 */
export async function joinSinceVacuum(database: Database, size: SeedSize, joins: number): Promise<void> {
  const text = membersSql(size.members, 'generate_series($1::int, $1::int)');
  for (let g = size.members + 1; g <= size.members + joins; g++) await database.query(text, [g]);
}

/** Seeds an empty database with `size` members and attempts; returns how long it took. */
export async function seedCommunity(database: Database, size: SeedSize, log: (line: string) => void = () => undefined): Promise<number> {
  const started = Date.now();
  const { rows } = await database.query<{ n: number }>('select count(*)::int as n from members');
  if (Number(rows[0]?.n ?? 0) > 0) throw new Error('seedCommunity expects an empty database');
  await withoutIndexes(database, 'members', async () => {
    await database.exec(membersSql(size.members));
  });
  log(`  ${size.members} members seeded (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  const base = Number((await database.query<{ base: string | number }>('select min(id) - 1 as base from members')).rows[0]?.base ?? 0);
  const attemptsStarted = Date.now();
  await withoutIndexes(database, 'verification_attempts', async () => {
    await database.exec(attemptsSql(size, base));
  });
  log(`  ${size.attempts} attempts seeded (${((Date.now() - attemptsStarted) / 1000).toFixed(0)} s)`);
  // what autovacuum (PostgreSQL) or the hourly retention job (PGlite, retention.service.ts)
  // leaves behind: fresh statistics and a visibility map, so index-only scans stay index-only
  await database.exec('vacuum analyze');
  // on PGlite the job also checkpoints: it has no background writer to write dirty pages out
  if (database.kind === 'pglite') await database.exec('checkpoint');
  return Date.now() - started;
}
