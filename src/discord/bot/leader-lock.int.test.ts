import { describeEngines } from '../../test-support/database';
import { createLeaderLock } from './leader-lock';

describeEngines('bot leader lock', (getDatabase, engine) => {
  if (engine === 'pglite') {
    it('always leads on the embedded engine (one process owns the data folder)', async () => {
      const lock = createLeaderLock(getDatabase());
      expect(await lock.tryAcquire(() => undefined)).toBe(true);
      expect(await lock.stillHeld()).toBe(true);
      await lock.release();
    });
    return;
  }

  it('is held by one lock at a time, and free again once released', async () => {
    const first = createLeaderLock(getDatabase());
    const second = createLeaderLock(getDatabase());
    expect(await first.tryAcquire(() => undefined)).toBe(true);
    expect(await second.tryAcquire(() => undefined)).toBe(false);
    expect(await first.stillHeld()).toBe(true);
    await first.release();
    expect(await first.stillHeld()).toBe(false);
    expect(await second.tryAcquire(() => undefined)).toBe(true);
    await second.release();
  });

  it('gives its connection back to the pool without the error listener it added (one per term as leader)', async () => {
    const pool = getDatabase().pool!;
    // the pool hands out the connection released last: every term below holds the same one
    const connection = await pool.connect();
    const before = connection.listenerCount('error');
    connection.release();
    for (let term = 0; term < 12; term++) {
      const lock = createLeaderLock(getDatabase());
      expect(await lock.tryAcquire(() => undefined)).toBe(true);
      await lock.release();
    }
    const after = await pool.connect();
    try {
      expect(after).toBe(connection);
      expect(after.listenerCount('error')).toBe(before);
    } finally {
      after.release();
    }
  });

  it('reports the loss once when its connection dies, and can be taken again', async () => {
    const lock = createLeaderLock(getDatabase());
    let lost = 0;
    expect(await lock.tryAcquire(() => lost++)).toBe(true);
    await getDatabase().query(`select pg_terminate_backend(pid) from pg_locks where locktype = 'advisory' and objid = 72611003 and pid <> pg_backend_pid()`);
    for (let i = 0; i < 50 && lost === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(lost).toBe(1);
    expect(await lock.stillHeld()).toBe(false);
    expect(await lock.tryAcquire(() => lost++)).toBe(true);
    await lock.release();
    expect(lost).toBe(1);
  });
});
