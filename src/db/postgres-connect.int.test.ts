import { DatabaseOpenError, openPostgres } from './client';

const server = process.env.TEST_DATABASE_URL;
const withServer = server ? it : it.skip;

/** The same server, asked for with `change` applied to its URL. */
function variant(change: (url: URL) => void): string {
  const url = new URL(server!);
  change(url);
  return url.toString();
}

describe('opening a PostgreSQL server that refuses us', () => {
  withServer('fails at once, without retrying, for a user the server does not know, and says what to fix', async () => {
    const retries: number[] = [];
    const started = Date.now();
    const opening = openPostgres({
      url: variant((u) => (u.username = 'gatekeeper_no_such_role')),
      connectTimeoutSeconds: 30,
      onRetry: (attempt) => retries.push(attempt),
    });
    await expect(opening).rejects.toThrow(DatabaseOpenError);
    await expect(opening).rejects.toThrow(/\(DATABASE_URL\): .*gatekeeper_no_such_role.*; fix the user name or password in DATABASE_URL$/);
    expect(retries).toEqual([]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  withServer('fails at once for a database that does not exist', async () => {
    const opening = openPostgres({ url: variant((u) => (u.pathname = '/gatekeeper_no_such_db')), connectTimeoutSeconds: 30 });
    await expect(opening).rejects.toThrow(/create that database \(createdb\) or name an existing one in DATABASE_URL$/);
  });

  it('gives up on a server that does not answer after the default wait, well within 10 s', async () => {
    const started = Date.now();
    await expect(openPostgres({ url: 'postgres://nobody@127.0.0.1:1/none' })).rejects.toThrow(/after \d+ attempts/);
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 20_000);

  it('retries a server that does not answer, then names it once the wait is over', async () => {
    const retries: number[] = [];
    const opening = openPostgres({
      url: 'postgres://nobody@127.0.0.1:1/none',
      connectTimeoutSeconds: 1,
      onRetry: (attempt) => retries.push(attempt),
    });
    await expect(opening).rejects.toThrow(
      /^Cannot reach the PostgreSQL server at 127\.0\.0\.1:1\/none \(DATABASE_URL\) after \d+ attempts: /,
    );
    expect(retries.length).toBeGreaterThan(0);
  });
});
