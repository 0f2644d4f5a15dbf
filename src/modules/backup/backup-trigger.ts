import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Database } from '../../db/client';
import type { Logger } from '../../logger';
import { writeSnapshot } from './snapshot';

/**
 * `npm run backup` while the product runs: only the running process may read its open
 * database, so the command leaves a request file in `DATA_DIR/backup-requests/` and the
 * product answers with a result file beside it. Only someone who can write the data
 * folder — and so could copy the database anyway — can ask.
 */
const REQUESTS = 'backup-requests';
const POLL_MS = 250;

interface BackupRequest {
  target: string;
}
export type BackupResult = { file: string; bytes: number } | { error: string };

const requestsFolder = (dataDir: string) => path.join(dataDir, REQUESTS);

/** In the process that has the embedded database open: answers requests until stopped. */
export function startBackupTrigger(deps: { database: Database; dataDir: string; logger: Logger }): { stop(): void } {
  const folder = requestsFolder(deps.dataDir);
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void answerPending().finally(() => (busy = false));
  }, POLL_MS);
  timer.unref();

  async function answerPending(): Promise<void> {
    let names: string[];
    try {
      names = fs.readdirSync(folder).filter((name) => name.endsWith('.request.json'));
    } catch {
      return;
    }
    for (const name of names) {
      const id = name.slice(0, -'.request.json'.length);
      let result: BackupResult;
      try {
        const request = JSON.parse(fs.readFileSync(path.join(folder, name), 'utf8')) as BackupRequest;
        if (typeof request.target !== 'string' || !path.isAbsolute(request.target))
          throw new Error('the request names no absolute target path');
        result = await writeSnapshot(deps.database, deps.dataDir, request.target);
        deps.logger.info({ file: result.file, bytes: result.bytes }, 'backup written');
      } catch (error) {
        result = { error: (error as Error).message };
        deps.logger.warn({ reason: result.error }, 'backup failed');
      }
      fs.rmSync(path.join(folder, name), { force: true });
      fs.writeFileSync(path.join(folder, `${id}.result.json`), JSON.stringify(result));
    }
  }

  return { stop: () => clearInterval(timer) };
}

/** In the backup command: asks the running product and waits for its answer. */
export async function requestBackup(dataDir: string, target: string, timeoutMs = 120_000): Promise<BackupResult> {
  const folder = requestsFolder(dataDir);
  const id = randomUUID();
  const resultFile = path.join(folder, `${id}.result.json`);
  const requestFile = path.join(folder, `${id}.request.json`);
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  // written whole, then renamed: the product never reads half a request
  fs.writeFileSync(`${requestFile}.partial`, JSON.stringify({ target } satisfies BackupRequest));
  fs.renameSync(`${requestFile}.partial`, requestFile);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (fs.existsSync(resultFile)) {
      const result = JSON.parse(fs.readFileSync(resultFile, 'utf8')) as BackupResult;
      fs.rmSync(resultFile, { force: true });
      return result;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  fs.rmSync(requestFile, { force: true });
  return { error: `the running Gatekeeper did not answer within ${Math.round(timeoutMs / 1000)} s` };
}
