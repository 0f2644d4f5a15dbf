import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzleOnEmbedded, openMemoryPglite } from './client';
import { migrationsFolder, runMigrations } from './migrate';
import { describeEngines } from '../test-support/database';
import { nextSnowflake } from '../test-support/factories';
import { snowflakeTimestamp } from '../shared/discord-snowflake';

/**
 * An attempt keeps its account's creation time (verification_attempts.account_created_at),
 * read from the Discord id by discord_account_created_at (src/db/functions), so the raid
 * window counts young accounts without joining members. The SQL rule must agree with the
 * TypeScript one (snowflakeTimestamp), and attempts stored before the column existed get it
 * from the migration that adds it.
 */

const createdMs = async (query: (text: string, params: unknown[]) => Promise<{ rows: { ms: number | string | null }[] }>, id: string) =>
  (await query(`select (extract(epoch from discord_account_created_at($1)) * 1000)::float8 as ms`, [id])).rows[0]!.ms;

describeEngines('discord_account_created_at', (getDatabase) => {
  it('reads a snowflake as snowflakeTimestamp does, to the millisecond, and gives no age to an id that is not one', async () => {
    const query = (text: string, params: unknown[]) => getDatabase().query<{ ms: number | string | null }>(text, params);
    const ids = [
      nextSnowflake(new Date('2026-06-01T12:00:00.123Z')),
      nextSnowflake(new Date('2015-01-01T00:00:00.001Z')),
      '80351110224678912', // a real 2015 id (Discord's documentation example)
      '1234567890123456789',
      '99999999999999999999', // 20 digits: larger than 64 bits, still a number
    ];
    for (const id of ids) expect({ id, ms: Number(await createdMs(query, id)) }).toEqual({ id, ms: snowflakeTimestamp(id) });
    for (const notASnowflake of ['', 'abc', '12a', '-5', '123456789012345678901', ' 1']) {
      expect({ id: notASnowflake, ms: await createdMs(query, notASnowflake) }).toEqual({ id: notASnowflake, ms: null });
    }
  });
});

describe('the migration that adds verification_attempts.account_created_at', () => {
  it('fills it in for the attempts stored before, from their member’s id', async () => {
    // the migrations before it, in a folder of their own
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'gk-migrations-'));
    const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder(), 'meta', '_journal.json'), 'utf8')) as {
      entries: { tag: string }[];
    };
    const index = journal.entries.findIndex((e) => e.tag.endsWith('_attempts_account_created_at'));
    expect(index).toBeGreaterThan(0);
    const before = journal.entries.slice(0, index);
    fs.mkdirSync(path.join(folder, 'meta'));
    fs.writeFileSync(path.join(folder, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries: before }));
    for (const entry of before) fs.copyFileSync(path.join(migrationsFolder(), `${entry.tag}.sql`), path.join(folder, `${entry.tag}.sql`));

    const database = await openMemoryPglite();
    try {
      await migratePglite(drizzleOnEmbedded(database.pglite!), { migrationsFolder: folder });
      const created = new Date('2026-11-20T08:30:00.250Z');
      const snowflake = nextSnowflake(created);
      await database.query(`insert into members (discord_id, username) values ($1, 'old'), ('not-a-snowflake', 'odd')`, [snowflake]);
      await database.query(`insert into verification_attempts (member_id, outcome) select id, 'verified' from members`);

      await runMigrations(database);
      const { rows } = await database.query<{ discord_id: string; ms: number | null }>(
        `select m.discord_id, (extract(epoch from a.account_created_at) * 1000)::float8 as ms from verification_attempts a join members m on m.id = a.member_id order by a.id`,
      );
      expect(rows.map((r) => ({ discordId: r.discord_id, ms: r.ms === null ? null : Number(r.ms) }))).toEqual([
        { discordId: snowflake, ms: created.getTime() },
        { discordId: 'not-a-snowflake', ms: null },
      ]);
    } finally {
      await database.close();
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
