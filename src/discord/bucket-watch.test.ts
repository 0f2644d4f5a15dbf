import { bucketRoute, createBucketWatch } from './bucket-watch';

const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name.toLowerCase()] ?? null });
const answer = (bucket: string, limit: number, remaining: number, resetAfter: number) =>
  headers({ 'x-ratelimit-bucket': bucket, 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset-after': String(resetAfter) });

describe('bucket watch (what the X-RateLimit-* headers said)', () => {
  const PATCH = { method: 'PATCH', route: '/guilds/:id/members/:id' };
  const PUT_ROLE = { method: 'PUT', route: '/guilds/:id/members/:id/roles/:id' };
  const DELETE_ROLE = { method: 'DELETE', route: '/guilds/:id/members/:id/roles/:id' };

  it('names routes as the REST client does', () => {
    expect(bucketRoute('/guilds/123456789012345678/members/876543210987654321/roles/111111111111111111')).toBe('/guilds/:id/members/:id/roles/:id');
  });

  it('knows nothing of a route it has not seen an answer for', () => {
    const watch = createBucketWatch(() => 0);
    expect(watch.readyAt([{ ...PATCH, calls: 1 }])).toBeUndefined();
  });

  it('says now while the bucket has room, counting calls on their way, and the window end once spent', () => {
    let now = 1_000;
    const watch = createBucketWatch(() => now);
    watch.learn(PATCH.method, PATCH.route, answer('edit', 10, 1, 10));
    expect(watch.readyAt([{ ...PATCH, calls: 1 }])).toBe(1_000);
    const done = watch.begin(PATCH.method, PATCH.route);
    expect(watch.outstanding(PATCH.method, PATCH.route)).toBe(1);
    expect(watch.readyAt([{ ...PATCH, calls: 1 }])).toBe(11_000); // the one left is taken: next window
    expect(watch.readyAt([{ ...PATCH, calls: 11 }])).toBe(21_000); // a whole window more
    done();
    done(); // ending twice counts once
    expect(watch.outstanding(PATCH.method, PATCH.route)).toBe(0);
    now = 12_000; // the window is over: the whole limit again
    expect(watch.readyAt([{ ...PATCH, calls: 10 }])).toBe(12_000);
  });

  it('adds up routes that share a bucket (Add and Remove Guild Member Role)', () => {
    const watch = createBucketWatch(() => 0);
    watch.learn(PUT_ROLE.method, PUT_ROLE.route, answer('roles', 10, 1, 5));
    watch.learn(DELETE_ROLE.method, DELETE_ROLE.route, answer('roles', 10, 1, 5));
    expect(watch.readyAt([{ ...PUT_ROLE, calls: 1 }])).toBe(0);
    expect(watch.readyAt([{ ...PUT_ROLE, calls: 1 }, { ...DELETE_ROLE, calls: 1 }])).toBe(5_000);
    expect(watch.readyAt([{ ...PUT_ROLE, calls: 1 }, { ...PATCH, calls: 1 }])).toBeUndefined();
  });

  it('keeps the smallest remaining of one window when answers arrive out of order', () => {
    const watch = createBucketWatch(() => 0);
    watch.learn(PATCH.method, PATCH.route, answer('edit', 10, 3, 8), 0);
    watch.learn(PATCH.method, PATCH.route, answer('edit', 10, 5, 8), 10);
    expect(watch.readyAt([{ ...PATCH, calls: 3 }], 20)).toBe(20);
    expect(watch.readyAt([{ ...PATCH, calls: 4 }], 20)).toBe(8_010); // the newest answer's window end
  });

  it('ignores answers without rate-limit headers', () => {
    const watch = createBucketWatch(() => 0);
    watch.learn(PATCH.method, PATCH.route, headers({}));
    expect(watch.readyAt([{ ...PATCH, calls: 1 }])).toBeUndefined();
  });
});
