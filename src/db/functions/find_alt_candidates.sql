-- The alt-detection candidate lookup of one new attempt (src/modules/alts/alt-candidates.repository.ts),
-- as a function so that its plan is made once per session and reused: the statement is
-- the same for every attempt, the hashes are parameters (a hash the attempt lacks is null,
-- and a range on null matches nothing). Planning it anew for each attempt cost more than
-- running it (P1 bench, 1M attempts: ~0.7 ms of planning on PGlite, which keeps no plans).
-- `force_generic_plan`: one plan for every attempt, however popular its hashes; every
-- branch below has exactly one good plan (a backward range of its own index, stopped after
-- n entries), which alt-candidates.int.test.ts checks with EXPLAIN on this statement.
--
-- Exactly the candidates scoring can flag (canBeFlagged in src/modules/alts/alt-scoring.ts,
-- given the probe candidateProbe makes; alt-candidates.agreement.int.test.ts checks the two
-- agree). What flags, and why, is written once in docs/behaviour.md ("Alt detection"); here
-- each way to be flagged is one branch: the browser token and a rare component on every
-- network, the fingerprint, the address and the network (read only with a high-entropy
-- component to match) switched off on a network marked shared (a one-time filter). A
-- component's branch is read only when its anonymity count (below) is at most
-- RARITY.rareComponentOthers + 1 (the count includes the candidate).
--
-- Each branch is `where <hash> >= $x and <hash> <= $x and member_id <> $m order by <hash>
-- desc, id desc limit $n`: an index-only backward range scan of the (hash, id, member_id)
-- index reading about n entries, however popular the hash (a carrier NAT). `>= and <=`
-- instead of `=` keeps the order from collapsing to `order by id desc`, which the primary
-- key also offers (the planner would then sometimes walk the whole table backwards hoping
-- to meet a popular hash early). The member filter sits inside each branch so a member's
-- own re-verifications cannot crowd the other accounts out of the newest n. The network
-- branch reads the network's newest p_network_scan_limit entries (a bound on a huge network
-- nobody marked shared), from an index that also carries the four high-entropy components,
-- and keeps those sharing one; it is not read at all when the fingerprint and address
-- branches already hold p_limit distinct attempts (its rank comes last, so none of its rows
-- could make the window).
--
-- The anonymity sets scoring weighs the evidence by (AnonymityCounts in alt-scoring.ts): for
-- the fingerprint, the address and each high-entropy component, the distinct members other
-- than the attempt's own among the newest ANONYMITY_COUNT_CAP attempts carrying it (a
-- backward range of the same indexes, index-only, however popular the value), and for the
-- fingerprint also their distinct networks (from those rows); for the browser token, the
-- distinct networks other members' attempts carried it on (index-only: the token index
-- carries the network); and the members the server holds, counted up to
-- RARITY.membersToJudgeRarity (a bounded read of the members' primary key, never a count of
-- the whole table). The 64 and 1000 below are those two constants.
--
-- The window: the p_limit best distinct ids, in this order: the same browser token (one
-- browser profile, at most a handful of accounts); the same address AND the same
-- fingerprint (the address's newest p_limit attempts, each fingerprint read by primary key:
-- one device, or a household's same-model phones) and the rare components (at most two
-- members carry one: a handful of rows), so that a member's own older account on its own
-- address or on its own machine is never crowded out by the newest strangers sharing a
-- popular fingerprint or a carrier NAT; then the rarer of the two kinds of evidence (the fingerprint when no more
-- members show it than share the address, else the address); then the other; then the
-- network; newest first within a rank. Each row is then fetched by primary key through
-- LATERAL subqueries with LIMIT 1 (never a hash join over a scan of the whole table). One
-- json value: the shared-network marking, the anonymity counts and the candidates, newest
-- first (one field to decode instead of sixteen per candidate: PGlite decodes each field of
-- each row on the main thread).
CREATE OR REPLACE FUNCTION find_alt_candidates(
  p_ip_hash text,
  p_network_hash text,
  p_fingerprint_hash text,
  p_canvas_hash text,
  p_webgl_hash text,
  p_audio_hash text,
  p_fonts_hash text,
  p_browser_token_hash text,
  p_exclude_member_id bigint,
  p_limit integer,
  p_network_scan_limit integer
) RETURNS json AS $$
BEGIN
  RETURN (
    with flag as materialized (
      select exists (select 1 from shared_networks sn where sn.network_hash = p_network_hash) as shared
    ),
    by_fingerprint as materialized (
      select id from verification_attempts
      where fingerprint_hash >= p_fingerprint_hash and fingerprint_hash <= p_fingerprint_hash and member_id <> p_exclude_member_id
      order by fingerprint_hash desc, id desc limit p_limit
    ),
    by_browser as materialized (
      select id from verification_attempts
      where browser_token_hash >= p_browser_token_hash and browser_token_hash <= p_browser_token_hash and member_id <> p_exclude_member_id
      order by browser_token_hash desc, id desc limit p_limit
    ),
    by_address as materialized (
      select id from verification_attempts
      where not (select shared from flag) and ip_hash >= p_ip_hash and ip_hash <= p_ip_hash and member_id <> p_exclude_member_id
      order by ip_hash desc, id desc limit p_limit
    ),
    address_device as materialized (
      select b.id from by_address b
      cross join lateral (select d.fingerprint_hash from verification_attempts d where d.id = b.id limit 1) as device
      where device.fingerprint_hash = p_fingerprint_hash
    ),
    counts as materialized (
      select
        (select count(distinct f.member_id) from (select member_id from verification_attempts where fingerprint_hash >= p_fingerprint_hash and fingerprint_hash <= p_fingerprint_hash and member_id <> p_exclude_member_id order by fingerprint_hash desc, id desc limit 64) as f)::int as fingerprint,
        (select count(distinct fn.network_hash) from (select network_hash from verification_attempts where fingerprint_hash >= p_fingerprint_hash and fingerprint_hash <= p_fingerprint_hash and member_id <> p_exclude_member_id order by fingerprint_hash desc, id desc limit 64) as fn)::int as fingerprint_networks,
        (select count(distinct i.member_id) from (select member_id from verification_attempts where ip_hash >= p_ip_hash and ip_hash <= p_ip_hash and member_id <> p_exclude_member_id order by ip_hash desc, id desc limit 64) as i)::int as address,
        (select count(distinct c.member_id) from (select member_id from verification_attempts where canvas_hash >= p_canvas_hash and canvas_hash <= p_canvas_hash and member_id <> p_exclude_member_id order by canvas_hash desc, id desc limit 64) as c)::int as canvas,
        (select count(distinct w.member_id) from (select member_id from verification_attempts where webgl_hash >= p_webgl_hash and webgl_hash <= p_webgl_hash and member_id <> p_exclude_member_id order by webgl_hash desc, id desc limit 64) as w)::int as webgl,
        (select count(distinct au.member_id) from (select member_id from verification_attempts where audio_hash >= p_audio_hash and audio_hash <= p_audio_hash and member_id <> p_exclude_member_id order by audio_hash desc, id desc limit 64) as au)::int as audio,
        (select count(distinct bn.network_hash) from (select network_hash from verification_attempts where browser_token_hash >= p_browser_token_hash and browser_token_hash <= p_browser_token_hash and member_id <> p_exclude_member_id order by browser_token_hash desc, id desc limit 64) as bn)::int as browser_token_networks,
        (select count(distinct fo.member_id) from (select member_id from verification_attempts where fonts_hash >= p_fonts_hash and fonts_hash <= p_fonts_hash and member_id <> p_exclude_member_id order by fonts_hash desc, id desc limit 64) as fo)::int as fonts,
        (select count(*) from (select 1 from members limit 1000) as mm)::int as members
    ),
    by_rare_component as materialized (
      select id from (select id from verification_attempts
        where (select canvas from counts) <= 2 and canvas_hash >= p_canvas_hash and canvas_hash <= p_canvas_hash and member_id <> p_exclude_member_id
        order by canvas_hash desc, id desc limit p_limit) as rc
      union all select id from (select id from verification_attempts
        where (select webgl from counts) <= 2 and webgl_hash >= p_webgl_hash and webgl_hash <= p_webgl_hash and member_id <> p_exclude_member_id
        order by webgl_hash desc, id desc limit p_limit) as rw
      union all select id from (select id from verification_attempts
        where (select audio from counts) <= 2 and audio_hash >= p_audio_hash and audio_hash <= p_audio_hash and member_id <> p_exclude_member_id
        order by audio_hash desc, id desc limit p_limit) as ra
      union all select id from (select id from verification_attempts
        where (select fonts from counts) <= 2 and fonts_hash >= p_fonts_hash and fonts_hash <= p_fonts_hash and member_id <> p_exclude_member_id
        order by fonts_hash desc, id desc limit p_limit) as rf
    ),
    by_network as (
      select id from (
        select id, canvas_hash, webgl_hash, audio_hash, fonts_hash from verification_attempts
        where not (select shared from flag) and coalesce(p_canvas_hash, p_webgl_hash, p_audio_hash, p_fonts_hash) is not null
          and (select count(distinct id) from (select id from by_browser union all select id from by_fingerprint union all select id from by_address union all select id from by_rare_component) as earlier) < p_limit
          and network_hash >= p_network_hash and network_hash <= p_network_hash and member_id <> p_exclude_member_id
        order by network_hash desc, id desc limit p_network_scan_limit
      ) as recent
      where canvas_hash = p_canvas_hash or webgl_hash = p_webgl_hash or audio_hash = p_audio_hash or fonts_hash = p_fonts_hash
      order by id desc limit p_limit
    ),
    top as (
      select hits.id from (
        select id, 0 as rank from by_browser
        union all select id, 1 from address_device
        union all select id, 1 from by_rare_component
        union all select id, case when (select fingerprint <= address from counts) then 2 else 3 end from by_fingerprint
        union all select id, case when (select fingerprint <= address from counts) then 3 else 2 end from by_address
        union all select id, 4 from by_network
      ) as hits
      group by hits.id order by min(hits.rank), hits.id desc limit p_limit
    )
    select json_build_object('shared_network', (select shared from flag), 'counts', (select row_to_json(counts) from counts), 'candidates', coalesce((
      select json_agg(c order by c.id desc) from (
        select a.id, a.member_id, a.ip_hash, a.network_hash, a.fingerprint_hash,
               a.canvas_hash, a.webgl_hash, a.audio_hash, a.fonts_hash, a.screen_hash, a.timezone_hash,
               a.language_hash, a.platform_hash, a.browser_token_hash,
               m.discord_id as member_discord_id, m.username as member_username,
               (extract(epoch from m.created_at) * 1000)::float8 as member_created_ms
        from top
        cross join lateral (select * from verification_attempts va where va.id = top.id limit 1) as a
        cross join lateral (select discord_id, username, created_at from members mm where mm.id = a.member_id limit 1) as m
      ) as c), '[]'::json))
  );
END;
$$ LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan;
