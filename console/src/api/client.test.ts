// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NOTIFY_EVENT } from '../shared/notifications.ts';
import { readToken, saveSession } from '../shared/session.ts';
import { jsonResponse } from '../testing/render.tsx';
import { ApiError, apiData, apiRequest, SESSION_EXPIRED_MESSAGE } from './client.ts';

const fetchMock = vi.fn<typeof fetch>();
beforeEach(() => {
  localStorage.clear();
  fetchMock.mockReset();
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => vi.unstubAllGlobals());

const sentHeaders = () => fetchMock.mock.calls[0]![1]!.headers as Record<string, string>;

describe('the API client', () => {
  it('calls the API root with the bearer token and a JSON body, and unwraps data', async () => {
    saveSession('jwt-1', { id: 'u1', email: 'ada@example.com' });
    fetchMock.mockResolvedValue(jsonResponse(200, { success: true, data: { id: 't1' }, message: 'OK' }));
    await expect(apiData('POST', '/team/', { body: { name: 'Core' }, query: { planId: 'p1', skip: undefined } })).resolves.toEqual({ id: 't1' });
    expect(fetchMock.mock.calls[0]![0]).toBe('/api/team/?planId=p1');
    expect(sentHeaders()).toMatchObject({ authorization: 'Bearer jwt-1', 'content-type': 'application/json' });
    expect(fetchMock.mock.calls[0]![1]!.body).toBe('{"name":"Core"}');
  });

  it('sends FormData as it is, without a JSON content type, and no token when signed out', async () => {
    fetchMock.mockResolvedValue(jsonResponse(200, { success: true, data: null }));
    const form = new FormData();
    form.set('avatar', 'x');
    await apiRequest('PATCH', '/auth/update-profile', { body: form });
    expect(sentHeaders()['content-type']).toBeUndefined();
    expect(sentHeaders().authorization).toBeUndefined();
    expect(fetchMock.mock.calls[0]![1]!.body).toBe(form);
  });

  it("gives the server's message, else the caller's fallback", async () => {
    fetchMock.mockResolvedValueOnce(jsonResponse(409, { success: false, data: null, message: 'An account with this email already exists' }));
    await expect(apiData('POST', '/auth/register', { fallback: 'Registration failed' })).rejects.toThrow('An account with this email already exists');
    fetchMock.mockResolvedValueOnce(new Response('bad gateway', { status: 502 }));
    await expect(apiData('POST', '/auth/login', { fallback: 'Login failed' })).rejects.toMatchObject({ message: 'Login failed', status: 502 });
    fetchMock.mockRejectedValueOnce(new TypeError('Failed to fetch'));
    await expect(apiData('POST', '/auth/send-email-otp', { fallback: 'Failed to send OTP' })).rejects.toMatchObject({ message: 'Failed to send OTP', status: 0 });
  });

  it('on a 401 clears the stored session and reports that it expired', async () => {
    saveSession('jwt-old', { id: 'u1', email: 'ada@example.com' });
    const notices: string[] = [];
    const listen = (event: Event) => notices.push((event as CustomEvent<{ message: string }>).detail.message);
    window.addEventListener(NOTIFY_EVENT, listen);
    fetchMock.mockResolvedValue(jsonResponse(401, { success: false, data: null, message: 'Unauthorized' }));

    const failure = await apiData('GET', '/team/').catch((error: unknown) => error);
    window.removeEventListener(NOTIFY_EVENT, listen);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).message).toBe(SESSION_EXPIRED_MESSAGE);
    expect(readToken()).toBeNull();
    expect(localStorage.getItem('user')).toBeNull();
    expect(notices).toEqual([SESSION_EXPIRED_MESSAGE]);
  });

  it('gives up after 30 seconds', async () => {
    vi.useFakeTimers();
    fetchMock.mockImplementation((_url, init) => new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))));
    const pending = apiData('GET', '/usage/group', { fallback: 'Failed to fetch usage' }).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(29_999);
    expect(fetchMock.mock.calls[0]![1]!.signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await pending).toMatchObject({ message: 'Failed to fetch usage', status: 0 });
    vi.useRealTimers();
  });
});
