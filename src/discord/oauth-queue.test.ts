import type { OutboundResponse } from '../outbound-http';
import { createOAuthQueue, OAuthQueueTimeout } from './oauth-queue';

/** An answer as Discord shapes it: status, headers, JSON body. */
function answer(status: number, headers: Record<string, string>, body: unknown = {}): OutboundResponse {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const text = JSON.stringify(body);
  return {
    ok: status < 300,
    status,
    headers: { get: (name) => lower[name.toLowerCase()] ?? null },
    json: async () => JSON.parse(text),
    text: async () => text,
  };
}

/** A fixed-window endpoint like the emulator's: `limit` per `windowMs`, starting with the first call. */
function endpoint(limit: number, windowMs: number, bucket = 'b1') {
  let resetAt = 0;
  let count = 0;
  const log = { ok: 0, limited: 0, concurrent: 0, maxConcurrent: 0 };
  const send = async (): Promise<OutboundResponse> => {
    log.maxConcurrent = Math.max(log.maxConcurrent, ++log.concurrent);
    await new Promise((r) => setTimeout(r, 2));
    log.concurrent--;
    const now = performance.now();
    if (now >= resetAt) {
      resetAt = now + windowMs;
      count = 0;
    }
    const left = resetAt - now;
    const headers = {
      'X-RateLimit-Limit': String(limit),
      'X-RateLimit-Reset-After': (Math.ceil(left) / 1000).toFixed(3),
      'X-RateLimit-Bucket': bucket,
    };
    if (count >= limit) {
      log.limited++;
      return answer(
        429,
        { ...headers, 'X-RateLimit-Remaining': '0', 'X-RateLimit-Scope': 'user', 'Retry-After': String(Math.ceil(left / 1000)) },
        { message: 'You are being rate limited.', code: 0, retry_after: Math.ceil(left) / 1000, global: false },
      );
    }
    count++;
    log.ok++;
    return answer(200, { ...headers, 'X-RateLimit-Remaining': String(limit - count) }, { ok: true });
  };
  return { send, log };
}

describe('OAuth queue', () => {
  it('learns the bucket from the first answer, then sends a window full at a time: 60 calls, no 429', async () => {
    const queue = createOAuthQueue();
    const { send, log } = endpoint(5, 60);
    const results = await Promise.all(Array.from({ length: 60 }, () => queue.run('POST /oauth2/token', send, { deadlineMs: 10_000 })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(log).toMatchObject({ ok: 60, limited: 0 });
    expect(log.maxConcurrent).toBeLessThanOrEqual(5);
    expect(queue.waiting).toBe(0);
  });

  it('sends one call alone until a route answers, then up to Remaining at once', async () => {
    const queue = createOAuthQueue();
    const { send, log } = endpoint(50, 1000);
    const concurrency: number[] = [];
    const watched = async () => {
      concurrency.push(log.concurrent + 1);
      return send();
    };
    await Promise.all(Array.from({ length: 10 }, () => queue.run('POST /oauth2/token', watched, { deadlineMs: 5_000 })));
    expect(concurrency[0]).toBe(1);
    expect(Math.max(...concurrency)).toBeGreaterThan(1);
  });

  it('waits out a 429 with its Retry-After (plus jitter), then sends the call again first', async () => {
    let calls = 0;
    const at: number[] = [];
    const send = async () => {
      at.push(performance.now());
      return ++calls === 1
        ? answer(
            429,
            { 'X-RateLimit-Scope': 'shared', 'Retry-After': '1' },
            { message: 'You are being rate limited.', code: 0, retry_after: 0.1, global: false },
          )
        : answer(200, {});
    };
    const queue = createOAuthQueue({ random: () => 1 });
    const response = await queue.run('POST /oauth2/token', send, { deadlineMs: 5_000 });
    expect(response.status).toBe(200);
    expect(calls).toBe(2);
    // the body's fractional retry_after (100 ms) wins over the header's whole seconds; jitter at most 250 ms
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(99);
    expect(at[1]! - at[0]!).toBeLessThan(1000);
  });

  it('holds every route on a global 429', async () => {
    const queue = createOAuthQueue({ random: () => 0 });
    let first = true;
    const token = async () => {
      if (!first) return answer(200, {});
      first = false;
      return answer(
        429,
        { 'X-RateLimit-Global': 'true', 'X-RateLimit-Scope': 'global', 'Retry-After': '1' },
        { message: 'You are being rate limited.', code: 0, retry_after: 0.2, global: true },
      );
    };
    const start = performance.now();
    const exchange = queue.run('POST /oauth2/token', token, { deadlineMs: 5_000 });
    await new Promise((r) => setTimeout(r, 20));
    let revokedAt = 0;
    const revoke = queue.run('POST /oauth2/token/revoke', async () => ((revokedAt = performance.now()), answer(200, {})), {
      deadlineMs: 5_000,
    });
    await Promise.all([exchange, revoke]);
    expect(revokedAt - start).toBeGreaterThanOrEqual(195);
  });

  it('refuses at once a call whose turn comes after its deadline, with the wait left', async () => {
    const queue = createOAuthQueue({ random: () => 0 });
    const { send } = endpoint(1, 5_000);
    await queue.run('POST /oauth2/token', send, { deadlineMs: 1_000 });
    const started = performance.now();
    const refused = await queue.run('POST /oauth2/token', send, { deadlineMs: 1_000 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OAuthQueueTimeout);
    expect((refused as OAuthQueueTimeout).retryAfterMs).toBeGreaterThan(3_000);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('lets sign-ins go before background calls waiting for the same bucket', async () => {
    const queue = createOAuthQueue({ random: () => 0 });
    const { send } = endpoint(1, 50);
    const order: string[] = [];
    const tagged = (tag: string) => async () => (order.push(tag), send());
    await queue.run('POST /oauth2/token', tagged('first'), { deadlineMs: 5_000 });
    await Promise.all([
      queue.run('POST /oauth2/token', tagged('revoke'), { deadlineMs: 5_000, background: true }),
      queue.run('POST /oauth2/token', tagged('sign-in'), { deadlineMs: 5_000 }),
    ]);
    expect(order).toEqual(['first', 'sign-in', 'revoke']);
  });
});
