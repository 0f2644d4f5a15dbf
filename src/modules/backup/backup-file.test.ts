import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { BackupFileError, decodeBackup, encodeBackup } from './backup-file';

const database = gzipSync(Buffer.from('the data folder, as a tar'));
const keys = { 'session.key': Buffer.from('s'.repeat(48)), 'ip-hash.key': Buffer.from('k'.repeat(64)) };
let folder: string;
beforeAll(() => (folder = fs.mkdtempSync(path.join(os.tmpdir(), 'gk-backup-file-'))));
afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

function written(bytes: Buffer, name = 'file.backup'): string {
  const file = path.join(folder, name);
  fs.writeFileSync(file, bytes);
  return file;
}

function refusal(bytes: Buffer): string {
  try {
    decodeBackup(written(bytes));
  } catch (error) {
    expect(error).toBeInstanceOf(BackupFileError);
    return (error as Error).message;
  }
  throw new Error('the damaged file was accepted');
}

/** The byte offset of the first occurrence of `text` in the file. */
const offsetOf = (bytes: Buffer, text: string) => bytes.indexOf(Buffer.from(text));

describe('a backup file', () => {
  const good = encodeBackup({ database, keys, createdAt: new Date('2026-11-28T10:00:00Z') });

  it('reads back what was written: keys and database', () => {
    const backup = decodeBackup(written(good));
    expect(backup.database.equals(database)).toBe(true);
    expect(backup.keys['ip-hash.key']?.toString()).toBe('k'.repeat(64));
    expect(backup.header.createdAt).toBe('2026-11-28T10:00:00.000Z');
  });

  it('refuses a header whose key changed though it still reads as JSON, naming the header', () => {
    const damaged = Buffer.from(good);
    const at = offsetOf(damaged, Buffer.from('k'.repeat(64)).toString('base64'));
    damaged.write('A', at + 5, 'latin1'); // one base64 character of the IP-hash key: the JSON stays valid
    expect(refusal(damaged)).toMatch(/is damaged: its header \(the keys and the database checksum\) fails its checksum$/);
  });

  it('refuses a header whose database checksum or size changed', () => {
    const damaged = Buffer.from(good);
    damaged.write('"databaseBytes":9', offsetOf(damaged, '"databaseBytes":'), 'latin1');
    expect(refusal(damaged)).toMatch(/its header .* fails its checksum$/);
  });

  it('refuses a damaged or missing checksum line', () => {
    const damaged = Buffer.from(good);
    const at = offsetOf(damaged, 'header-sha256 ') + 'header-sha256 '.length;
    damaged.write(damaged.toString('latin1', at, at + 1) === '0' ? '1' : '0', at, 'latin1');
    expect(refusal(damaged)).toMatch(/its header .* fails its checksum$/);
    const lineStart = offsetOf(good, 'header-sha256 ');
    const lineEnd = good.indexOf(0x0a, lineStart);
    expect(refusal(Buffer.concat([good.subarray(0, lineStart), good.subarray(lineEnd + 1)]))).toMatch(
      /its header checksum line is missing$/,
    );
  });

  it('refuses a damaged database part and a file that is not a backup', () => {
    const damaged = Buffer.from(good);
    damaged[damaged.length - 3] = damaged[damaged.length - 3]! ^ 0xff;
    expect(refusal(damaged)).toMatch(/the database part fails its checksum$/);
    expect(refusal(Buffer.from('hello\n'))).toMatch(/is not a Gatekeeper backup$/);
  });

  it('still reads a version 1 backup (made before the header was covered)', () => {
    const header = {
      createdAt: '2026-01-01T00:00:00.000Z',
      keys: { 'ip-hash.key': keys['ip-hash.key'].toString('base64') },
      databaseBytes: database.length,
      databaseSha256: createHash('sha256').update(database).digest('hex'),
    };
    const v1 = Buffer.concat([Buffer.from(`GATEKEEPER-BACKUP 1\n${JSON.stringify(header)}\n`), database]);
    const backup = decodeBackup(written(v1, 'old.backup'));
    expect(backup.database.equals(database)).toBe(true);
    expect(backup.keys['ip-hash.key']?.toString()).toBe('k'.repeat(64));
  });
});
