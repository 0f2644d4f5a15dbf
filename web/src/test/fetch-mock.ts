/**
 * A tiny fetch stand-in for jsdom (which has no fetch): routes keyed by 'METHOD /path' answer
 * with a status and a JSON (or text) body; anything unrouted answers 404. Every call is recorded.
 */
export interface MockReply {
  status?: number;
  body?: unknown;
  /** Reject like a network failure instead of answering. */
  networkError?: boolean;
}

export type MockRoute = MockReply | ((request: RecordedRequest) => MockReply | Promise<MockReply>);

export interface RecordedRequest {
  method: string;
  path: string;
  body: unknown;
  init: RequestInit | undefined;
}

export interface FetchMock {
  calls: RecordedRequest[];
  callsTo(method: string, path: string): RecordedRequest[];
  restore(): void;
}

const statusTexts: Record<number, string> = {
  200: 'OK',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  500: 'Internal Server Error',
};

export function mockFetch(routes: Record<string, MockRoute>): FetchMock {
  const calls: RecordedRequest[] = [];
  const original = (globalThis as { fetch?: typeof fetch }).fetch;
  const fake = jest.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = typeof input === 'string' ? input : input instanceof URL ? input.pathname + input.search : input.url;
    const method = (init?.method ?? 'GET').toUpperCase();
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
    const request: RecordedRequest = { method, path, body, init };
    calls.push(request);
    const route = routes[`${method} ${path}`];
    const reply: MockReply =
      route === undefined ? { status: 404, body: { error: 'Not found' } } : typeof route === 'function' ? await route(request) : route;
    if (reply.networkError) throw new TypeError('Failed to fetch');
    const status = reply.status ?? 200;
    const text = reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
    return {
      ok: status >= 200 && status < 300,
      status,
      statusText: statusTexts[status] ?? '',
      text: async () => text,
      json: async () => JSON.parse(text) as unknown,
      headers: { get: () => 'application/json' },
    } as unknown as Response;
  });
  (globalThis as { fetch?: typeof fetch }).fetch = fake as unknown as typeof fetch;
  return {
    calls,
    callsTo: (method, path) => calls.filter((call) => call.method === method && call.path === path),
    restore: () => {
      (globalThis as { fetch?: typeof fetch }).fetch = original;
    },
  };
}

/**
 * A route that holds its reply until the test gives it. A reply given before the page has sent
 * its request waits for it, so a test can answer as soon as it sees the loading state without
 * racing the moment the page calls fetch. Every request to the route gets the same reply.
 */
export function heldRoute<Reply = MockReply>(): { route: () => Promise<Reply>; answer: (reply: Reply) => void } {
  let give: (reply: Reply) => void = () => undefined;
  const reply = new Promise<Reply>((resolve) => (give = resolve));
  return { route: () => reply, answer: (value) => give(value) };
}
