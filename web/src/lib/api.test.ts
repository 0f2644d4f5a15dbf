import { mockFetch, type FetchMock } from '@/test/fetch-mock';
import { ApiError, apiErrorMessage, apiRequest, fetcher, isApiStatus, swrConfig } from './api';

describe('apiRequest', () => {
  let fetchMock: FetchMock;
  afterEach(() => fetchMock.restore());

  it('sends credentials and a JSON body, and parses the JSON answer', async () => {
    fetchMock = mockFetch({ 'POST /api/things': { body: { ok: true } } });
    await expect(apiRequest('POST', '/api/things', { a: 1 })).resolves.toEqual({ ok: true });
    const [call] = fetchMock.calls;
    expect(call?.init?.credentials).toBe('include');
    expect(call?.init?.body).toBe('{"a":1}');
    expect((call?.init?.headers as Record<string, string>)['Content-Type']).toBe('application/json');
  });

  it('sends no body when none is given and resolves undefined for an empty answer', async () => {
    fetchMock = mockFetch({ 'POST /api/rules/confirm': { status: 204 } });
    await expect(apiRequest('POST', '/api/rules/confirm')).resolves.toBeUndefined();
    expect(fetchMock.calls[0]?.init?.body).toBeUndefined();
  });

  it('GETs through the SWR fetcher without a Content-Type', async () => {
    fetchMock = mockFetch({ 'GET /api/config': { body: { dataRetentionDays: 30 } } });
    await expect(fetcher('/api/config')).resolves.toEqual({ dataRetentionDays: 30 });
    expect(fetchMock.calls[0]?.init?.method).toBe('GET');
    expect((fetchMock.calls[0]?.init?.headers as Record<string, string>)['Content-Type']).toBeUndefined();
  });

  it('raises "status: body" on a non-OK answer', async () => {
    fetchMock = mockFetch({ 'GET /api/admin/users': { status: 401, body: { error: 'Not signed in', code: 'unauthorized' } } });
    const error = await apiRequest('GET', '/api/admin/users').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toBe('401: {"error":"Not signed in","code":"unauthorized"}');
    expect((error as ApiError).status).toBe(401);
    expect(isApiStatus(error, 401)).toBe(true);
  });

  it('uses the status text when the body is empty', async () => {
    fetchMock = mockFetch({ 'GET /api/x': { status: 500 } });
    await expect(apiRequest('GET', '/api/x')).rejects.toThrow('500: Internal Server Error');
  });
});

describe('apiErrorMessage', () => {
  it("extracts the server's error field", () => {
    expect(apiErrorMessage(new ApiError(400, '{"error":"Username taken","code":"conflict"}', 'Bad Request'), 'Failed')).toBe(
      'Username taken',
    );
    expect(apiErrorMessage(new Error('409: {"error":"Already verified"}'), 'Failed')).toBe('Already verified');
  });

  it('falls back when there is no JSON error', () => {
    expect(apiErrorMessage(new ApiError(502, '<html>Bad gateway</html>', 'Bad Gateway'), 'Failed to save admin note.')).toBe(
      'Failed to save admin note.',
    );
    expect(apiErrorMessage(new TypeError('Failed to fetch'), 'Fallback')).toBe('Fallback');
    expect(apiErrorMessage(undefined, 'Fallback')).toBe('Fallback');
  });
});

describe('swrConfig', () => {
  it('never retries or refetches by itself', () => {
    expect(swrConfig).toMatchObject({
      shouldRetryOnError: false,
      revalidateOnFocus: false,
      revalidateOnReconnect: false,
      revalidateIfStale: false,
      refreshInterval: 0,
    });
  });
});
