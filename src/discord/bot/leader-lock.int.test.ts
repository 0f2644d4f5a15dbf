import { createTestDatabase, describeEngines } from '../../test-support/database';
import { createLeaderLock } from './leader-lock';
import { terminateLeaderLockHolder } from '../../test-support/leader-lock-holder';

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
    expect(await terminateLeaderLockHolder(getDatabase())).toBe(1);
    for (let i = 0; i < 50 && lost === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(lost).toBe(1);
    expect(await lock.stillHeld()).toBe(false);
    expect(await lock.tryAcquire(() => lost++)).toBe(true);
    await lock.release();
    expect(lost).toBe(1);
  });

  it("is each database's own: a server shared by two databases has a leader in each, and ending one leaves the other", async () => {
    const other = await createTestDatabase('postgres');
    try {
      let lostHere = 0;
      let lostThere = 0;
      const here = createLeaderLock(getDatabase());
      const there = createLeaderLock(other);
      expect(await here.tryAcquire(() => lostHere++)).toBe(true);
      expect(await there.tryAcquire(() => lostThere++)).toBe(true);
      // the test-support function ends this database's holder only: ending every database's would end other test files' bots too
      expect(await terminateLeaderLockHolder(getDatabase())).toBe(1);
      for (let i = 0; i < 50 && lostHere === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(lostHere).toBe(1);
      expect(await there.stillHeld()).toBe(true);
      expect(lostThere).toBe(0);
      await there.release();
    } finally {
      await other.close();
    }
  });
});
