import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { openPglite, type Database } from '../../db/client';
import { runMigrations } from '../../db/migrate';
import { members } from '../../db/schema';
import { silentLogger } from '../../logger';
import { buildMember } from '../../test-support/factories';
import { BackupFileError } from './backup-file';
import { requestBackup, startBackupTrigger } from './backup-trigger';
import { runDailyBackup } from './daily-backup';
import { restoreSnapshot } from './restore';
import { writeSnapshot } from './snapshot';

const run = promisify(execFile);
const ROOT = path.join(__dirname, '../../..');

/** Every file under a folder with its size and modification time: "nothing changed" is compared on this. */
function listing(folder: string): string[] {
  if (!fs.existsSync(folder)) return [];
  return (fs.readdirSync(folder, { recursive: true }) as string[]).sort().map((name) => {
    const stat = fs.statSync(path.join(folder, name));
    return `${name}:${stat.isDirectory() ? 'dir' : `${stat.size}:${stat.mtimeMs}`}`;
  });
}

async function memberIds(database: Database): Promise<number[]> {
  return (await database.db.select({ id: members.id }).from(members)).map((row) => row.id).sort((a, b) => a - b);
}

describe('backup and restore of the embedded database', () => {
  let tmp: string;
  let dataDir: string;
  let database: Database;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gatekeeper-backup-'));
    dataDir = path.join(tmp, 'live');
    database = await openPglite(dataDir);
    await runMigrations(database);
    fs.writeFileSync(path.join(dataDir, 'ip-hash.key'), 'k'.repeat(64));
    for (let i = 0; i < 40; i++) await buildMember(database.db);
  }, 60_000);
  afterAll(async () => {
    await database.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('backs up while writes go on, restores into a fresh folder, and every member committed before the backup is there', async () => {
    let writing = true;
    let written = 0;
    const load = (async () => {
      while (writing) {
        await database.db.transaction(async (tx) => {
          await buildMember(tx);
          await buildMember(tx);
        });
        written += 2;
        // writes arrive from I/O, as requests do: PGlite answers in microtasks, which would starve timers
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const before = await memberIds(database);
    const file = path.join(tmp, 'out', 'under-load.backup');
    await writeSnapshot(database, dataDir, file);
    const after = await memberIds(database);
    writing = false;
    await load;
    expect(written).toBeGreaterThan(0);

    const target = path.join(tmp, 'restored');
    const result = await restoreSnapshot(file, target);
    expect(fs.readFileSync(path.join(target, 'ip-hash.key'), 'utf8')).toBe('k'.repeat(64));
    const restored = await openPglite(target);
    try {
      const ids = await memberIds(restored);
      expect(result.members).toBe(ids.length);
      for (const id of before) expect(ids).toContain(id);
      for (const id of ids) expect(after).toContain(id);
      // transactions are whole: members were written two at a time
      expect((ids.length - 40) % 2).toBe(0);
    } finally {
      await restored.close();
    }
  }, 120_000);

  it('while the product runs, a backup request is answered by the process that has the database open', async () => {
    const trigger = startBackupTrigger({ database, dataDir, logger: silentLogger });
    try {
      const file = path.join(tmp, 'out', 'requested.backup');
      expect(await requestBackup(dataDir, file, 30_000)).toEqual({ file, bytes: fs.statSync(file).size });
      const unwritable = path.join(tmp, 'out', 'requested.backup', 'below-a-file.backup');
      const refused = await requestBackup(dataDir, unwritable, 30_000);
      expect(refused).toEqual({ error: expect.stringMatching(/^cannot write to .*requested\.backup: (ENOTDIR|EEXIST)$/) });
    } finally {
      trigger.stop();
    }
  }, 60_000);

  it('the daily backup keeps the newest BACKUP_KEEP files', async () => {
    const days = [1, 2, 3, 4].map((day) => new Date(Date.UTC(2026, 0, day, 3, 30)));
    for (const now of days) await runDailyBackup({ database, dataDir, keep: 2, now });
    expect(fs.readdirSync(path.join(dataDir, 'backups')).sort()).toEqual([
      'gatekeeper-2026-01-03T03-30-00-000Z.backup',
      'gatekeeper-2026-01-04T03-30-00-000Z.backup',
    ]);
  }, 60_000);

  describe('refusals change nothing', () => {
    let good: string;
    beforeAll(async () => {
      good = path.join(tmp, 'out', 'good.backup');
      await writeSnapshot(database, dataDir, good);
    }, 60_000);

    async function refusal(file: string, target: string): Promise<string> {
      const before = listing(target);
      const error = await restoreSnapshot(file, target).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(BackupFileError);
      expect(listing(target)).toEqual(before);
      return (error as Error).message;
    }

    it('a damaged (truncated) file', async () => {
      const damaged = path.join(tmp, 'damaged.backup');
      const bytes = fs.readFileSync(good);
      fs.writeFileSync(damaged, bytes.subarray(0, bytes.length - 100));
      expect(await refusal(damaged, path.join(tmp, 'empty-1'))).toMatch(
        /damaged\.backup is damaged: \d+ of \d+ database bytes present \(truncated\?\)$/,
      );
      const flipped = Buffer.from(bytes);
      flipped.writeUInt8(flipped.readUInt8(flipped.length - 10) ^ 0xff, flipped.length - 10);
      fs.writeFileSync(damaged, flipped);
      expect(await refusal(damaged, path.join(tmp, 'empty-1'))).toMatch(/is damaged: the database part fails its checksum$/);
    });

    it('a foreign file (a tar of something else)', async () => {
      const foreign = path.join(tmp, 'foreign.tar');
      await run('tar', ['-cf', foreign, '-C', ROOT, 'package.json']);
      expect(await refusal(foreign, path.join(tmp, 'empty-2'))).toBe(`${foreign} is not a Gatekeeper backup`);
    });

    it('over live data, and into a folder that already holds a database', async () => {
      expect(await refusal(good, dataDir)).toBe(`Gatekeeper is running on ${dataDir}: stop it before restoring`);
      const restoredAlready = path.join(tmp, 'restored');
      expect(await refusal(good, restoredAlready)).toBe(
        `the data folder is not empty (${path.join(restoredAlready, 'db')} exists): move it aside or point DATA_DIR at an empty folder`,
      );
    });

    it('the commands answer one line and exit non-zero', async () => {
      const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', NODE_ENV: 'test' };
      const tsx = path.join(ROOT, 'node_modules/.bin/tsx');
      const refused = (error: { code: number; stderr: string }) => error;
      // two independent refusals: their start-ups (tsx compiling the sources) overlap
      const [restore, backup] = await Promise.all([
        run(tsx, [path.join(ROOT, 'scripts/restore.ts'), good], { env }).then(() => null, refused),
        run(tsx, [path.join(ROOT, 'scripts/backup.ts'), path.join(good, 'x.backup')], { env }).then(() => null, refused),
      ]);
      expect(restore?.code).toBe(1);
      expect(restore?.stderr).toBe(`gatekeeper: restore refused: Gatekeeper is running on ${dataDir}: stop it before restoring\n`);
      expect(backup?.code).toBe(1);
      expect(backup?.stderr).toMatch(/^gatekeeper: backup failed: cannot write to .*good\.backup: (ENOTDIR|EEXIST)\n$/);
    }, 60_000);
  });
});
