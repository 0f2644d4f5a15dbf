import { openPostgres, type Database } from './client';
import { inRequestTurn } from './request-turn';
import { describeOn, postgresTestUrl } from '../test-support/engine-pass';

jest.setTimeout(60_000);

/** A crowd on the PostgreSQL pool: a request's later statements go ahead of new requests' first ones. */
describeOn('postgres')('waiting for a pool connection [postgres]', () => {
  let database: Database;
  beforeAll(async () => {
    database = await openPostgres({ url: postgresTestUrl()!, poolMax: 1, connectTimeoutSeconds: 5 });
  });
  afterAll(async () => {
    await database.close();
  });

  /** runs `work` as one HTTP request's part would (the middleware does this in the app) */
  const asRequest = <T>(work: () => Promise<T>) =>
    new Promise<T>((resolve, reject) => inRequestTurn({}, () => void work().then(resolve, reject)));

  it('serves a request under way before requests that have not started, which keep their order', async () => {
    const answered: string[] = [];
    const statement = (name: string) => database.query('select 1').then(() => void answered.push(name));
    // a request that has run its first statement and waits (for Discord, say) before its second
    let resume!: () => void;
    const paused = new Promise<void>((resolve) => (resume = resolve));
    let firstDone!: () => void;
    const first = new Promise<void>((resolve) => (firstDone = resolve));
    const underWay = asRequest(async () => {
      await statement('under way, first');
      firstDone();
      await paused;
      await statement('under way, second');
    });
    await first;
    // the one connection is busy; new requests queue for it, then the request under way asks again
    const busy = database.query('select pg_sleep(0.5)');
    const newcomers = ['new 1', 'new 2', 'new 3'].map((name) => asRequest(() => statement(name)));
    await new Promise((resolve) => setImmediate(resolve));
    resume();
    await Promise.all([busy, ...newcomers, underWay]);
    expect(answered).toEqual(['under way, first', 'under way, second', 'new 1', 'new 2', 'new 3']);
  });
});
