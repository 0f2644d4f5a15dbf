import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { IP_HASH_KEY_FILE } from '../network';

/**
 * A Gatekeeper backup is one file: a magic line, a JSON header line, a checksum line, then
 * the embedded database's data folder as PGlite dumps it (a gzipped tar). The header
 * carries the key files of the data folder — without the same IP-hash key, stored network
 * hashes would match nothing again; without the outbox key, queued Discord actions could
 * not be opened — and a SHA-256 of the database part. The checksum line is a SHA-256 of
 * the magic and header lines, so every byte of the file is covered: a damaged key in the
 * header is refused by name, as a damaged database is, before anything is written.
 *
 * Version 1 files (no checksum line; their header was not covered) are still read, so a
 * backup made before version 2 can be restored.
 */
export const BACKUP_MAGIC = 'GATEKEEPER-BACKUP 2\n';
const BACKUP_MAGIC_V1 = 'GATEKEEPER-BACKUP 1\n';
const HEADER_CHECKSUM_PREFIX = 'header-sha256 ';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The data folder's files that belong with the database. */
export const KEY_FILES = ['session.key', 'outbox.key', IP_HASH_KEY_FILE] as const;

export interface BackupHeader {
  createdAt: string;
  /** key file name → base64 content */
  keys: Record<string, string>;
  databaseBytes: number;
  databaseSha256: string;
}

export class BackupFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupFileError';
  }
}

export function encodeBackup(input: { database: Buffer; keys: Record<string, Buffer>; createdAt: Date }): Buffer {
  const header: BackupHeader = {
    createdAt: input.createdAt.toISOString(),
    keys: Object.fromEntries(Object.entries(input.keys).map(([name, value]) => [name, value.toString('base64')])),
    databaseBytes: input.database.length,
    databaseSha256: createHash('sha256').update(input.database).digest('hex'),
  };
  const head = Buffer.from(`${BACKUP_MAGIC}${JSON.stringify(header)}\n`);
  return Buffer.concat([head, Buffer.from(`${HEADER_CHECKSUM_PREFIX}${sha256(head)}\n`), input.database]);
}

/**
 * Where the database part starts, after checking the checksum line of a version 2 file
 * (`headerEnd`: the newline that ends the header line).
 */
function databaseStart(file: string, bytes: Buffer, version: 1 | 2, headerEnd: number): number {
  if (version === 1) return headerEnd + 1;
  const lineEnd = bytes.indexOf(0x0a, headerEnd + 1);
  const line = bytes.subarray(headerEnd + 1, lineEnd < 0 ? headerEnd + 1 : lineEnd).toString('latin1');
  if (lineEnd < 0 || !line.startsWith(HEADER_CHECKSUM_PREFIX))
    throw new BackupFileError(`${file} is damaged: its header checksum line is missing`);
  if (line.slice(HEADER_CHECKSUM_PREFIX.length) !== sha256(bytes.subarray(0, headerEnd + 1)))
    throw new BackupFileError(`${file} is damaged: its header (the keys and the database checksum) fails its checksum`);
  return lineEnd + 1;
}

/** Reads and checks a backup file: the magic line, the header, the checksum and that the database part is a gzip stream. */
export function decodeBackup(file: string): { header: BackupHeader; database: Buffer; keys: Record<string, Buffer> } {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    throw new BackupFileError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const magic = bytes.subarray(0, BACKUP_MAGIC.length);
  const version = magic.equals(Buffer.from(BACKUP_MAGIC)) ? 2 : magic.equals(Buffer.from(BACKUP_MAGIC_V1)) ? 1 : null;
  if (version === null) throw new BackupFileError(`${file} is not a Gatekeeper backup`);
  const headerEnd = bytes.indexOf(0x0a, BACKUP_MAGIC.length);
  if (headerEnd < 0) throw new BackupFileError(`${file} is damaged: its header is incomplete`);
  const start = databaseStart(file, bytes, version, headerEnd);
  let header: BackupHeader;
  try {
    header = JSON.parse(bytes.subarray(BACKUP_MAGIC.length, headerEnd).toString('utf8')) as BackupHeader;
  } catch {
    throw new BackupFileError(`${file} is damaged: its header cannot be read`);
  }
  if (
    typeof header.databaseBytes !== 'number' ||
    typeof header.databaseSha256 !== 'string' ||
    typeof header.keys !== 'object' ||
    header.keys === null
  ) {
    throw new BackupFileError(`${file} is damaged: its header is incomplete`);
  }
  const database = bytes.subarray(start);
  if (database.length !== header.databaseBytes)
    throw new BackupFileError(`${file} is damaged: ${database.length} of ${header.databaseBytes} database bytes present (truncated?)`);
  if (sha256(database) !== header.databaseSha256) throw new BackupFileError(`${file} is damaged: the database part fails its checksum`);
  try {
    gunzipSync(database);
  } catch {
    throw new BackupFileError(`${file} is damaged: the database part is not a valid archive`);
  }
  const keys: Record<string, Buffer> = {};
  for (const name of KEY_FILES) if (typeof header.keys[name] === 'string') keys[name] = Buffer.from(header.keys[name], 'base64');
  return { header, database, keys };
}

/** `gatekeeper-2026-11-23T08-15-00-000Z.backup`: sortable, one per moment. */
export function backupFileName(at: Date): string {
  return `gatekeeper-${at.toISOString().replace(/[:.]/g, '-')}.backup`;
}

/** Fails early, naming the folder, when a backup could not be written there. */
export function assertWritableFolder(folder: string): void {
  try {
    fs.mkdirSync(folder, { recursive: true });
    fs.accessSync(folder, fs.constants.W_OK);
  } catch (error) {
    throw new BackupFileError(`cannot write to ${folder}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** Writes beside the target and renames, so a crash never leaves half a backup under the final name. */
export function writeFileAtomically(file: string, bytes: Buffer): void {
  assertWritableFolder(path.dirname(file));
  const temporary = `${file}.partial`;
  try {
    fs.writeFileSync(temporary, bytes, { mode: 0o600 });
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw new BackupFileError(`cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
