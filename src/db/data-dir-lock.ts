import fs from 'node:fs';
import path from 'node:path';

/**
 * PGlite must never be opened by two processes at once: the second would corrupt the
 * first's files. The lock file holds the owner's pid; a lock left by a dead process
 * is taken over.
 */
export class DataDirLockedError extends Error {
  constructor(folder: string, pid: number) {
    super(`The data folder ${folder} is in use by another Gatekeeper process (pid ${pid}). Stop it, or point DATA_DIR at another folder.`);
    this.name = 'DataDirLockedError';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function acquireDataDirLock(folder: string): () => void {
  fs.mkdirSync(folder, { recursive: true });
  const lockPath = path.join(folder, 'gatekeeper.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(lockPath, 'wx');
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          if (fs.readFileSync(lockPath, 'utf8').trim() === String(process.pid)) fs.unlinkSync(lockPath);
        } catch {
          // already gone
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number.parseInt(fs.readFileSync(lockPath, 'utf8').trim(), 10);
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) throw new DataDirLockedError(folder, pid);
      if (pid === process.pid) throw new DataDirLockedError(folder, pid);
      fs.rmSync(lockPath, { force: true }); // stale: its owner is gone
    }
  }
  throw new Error(`Could not take the lock on ${folder}`);
}
