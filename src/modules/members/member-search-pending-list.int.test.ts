import { describeEngines, resetDatabase } from '../../test-support/database';

/**
 * The member search's trigram indexes keep their pending list short (migration 0022): new members'
 * trigrams wait on that list until it is merged into the index, and every search reads all of it.
 * With PostgreSQL's default limit (4 MB) a raid's new members piled up there until the next VACUUM,
 * which on PGlite is the hourly job.
 */
describeEngines('the member search after many new members (trigram pending list)', (getDatabase) => {
  beforeEach(async () => resetDatabase(getDatabase()));

  it('has both trigram indexes merge their pending list at 64 kB', async () => {
    const { rows } = await getDatabase().query<{ name: string; options: string[] | null }>(
      `select c.relname as name, c.reloptions as options from pg_class c where c.relname in ('members_username_trgm_idx', 'members_discord_id_trgm_idx') order by 1`,
    );
    expect(rows).toEqual([
      { name: 'members_discord_id_trgm_idx', options: ['gin_pending_list_limit=64'] },
      { name: 'members_username_trgm_idx', options: ['gin_pending_list_limit=64'] },
    ]);
  });

  it('leaves at most 64 kB of trigrams unmerged after 3,000 members join one by one', async () => {
    const database = getDatabase();
    const words = ['fox', 'wizard', 'rose', 'ninja', 'dark', 'star', 'moon', 'shadow'];
    for (let batch = 0; batch < 30; batch++) {
      // 100 joins per statement: each row goes through the pending list as a single insert would
      await database.query(
        `insert into members (discord_id, username) select (300000000000000000 + g)::text, ($2::text[])[1 + g % 8] || ($2::text[])[1 + (g * 3) % 8] || g from generate_series($1::int, $1::int + 99) g`,
        [batch * 100, words],
      );
    }
    // what is still on each list, in pages: the merge returns how many it emptied (8 kB each)
    const { rows } = await database.query<{ username: number; discordId: number }>(
      `select gin_clean_pending_list('members_username_trgm_idx'::regclass)::int as "username", gin_clean_pending_list('members_discord_id_trgm_idx'::regclass)::int as "discordId"`,
    );
    // with the default limit (4 MB) these 3,000 members left 100 and 64 pages on the two lists
    expect(rows[0]!.username).toBeLessThanOrEqual(8);
    expect(rows[0]!.discordId).toBeLessThanOrEqual(8);
    // and the search still finds what it should
    const found = await database.query<{ n: number }>(`select count(*)::int as n from members where username ilike '%foxfox%'`);
    expect(found.rows[0]!.n).toBeGreaterThan(0);
  });
});
