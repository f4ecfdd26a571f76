/**
 * The one API client: every call goes to API_ROOT with a 30 s timeout, the bearer
 * token when one is stored, and a JSON body unless the payload is FormData. Answers
 * are the envelope {success, data, message}; `apiData` unwraps `data`.
 * Failures throw ApiError with the server's message, else the caller's fallback
 * (spec §8). A 401 on a signed-in request clears the session and reports
 * 'Session expired. Please login again.'
 *
 * @example
 *   const plans = await apiData<Plan[]>('GET', '/subscription/plans', { fallback: 'Failed to fetch plans' });
 */
import { API_ROOT, API_TIMEOUT_MS } from '../shared/config.ts';
import { notify } from '../shared/notifications.ts';
import { clearSession, readToken } from '../shared/session.ts';

export const SESSION_EXPIRED_MESSAGE = 'Session expired. Please login again.';

export interface ApiEnvelope<T> {
  success: boolean;
  data: T;
  message?: string;
  errors?: unknown;
}

export class ApiError extends Error {
  constructor(
    message: string,
    /** HTTP status, or 0 when no answer came (network failure, timeout). */
    readonly status: number,
    /** The parsed answer body, when there was one. */
    readonly body?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  /** The message when the server gives none (spec §8 fallbacks). */
  fallback?: string;
  signal?: AbortSignal;
}

function urlFor(path: string, query: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined) params.set(key, String(value));
  }
  const search = params.toString();
  return `${API_ROOT}${path}${search ? `?${search}` : ''}`;
}

function serverMessage(body: unknown): string | undefined {
  const message = (body as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' && message.length > 0 ? message : undefined;
}

/** Calls the API and returns the whole envelope. */
export async function apiRequest<T>(method: HttpMethod, path: string, options: RequestOptions = {}): Promise<ApiEnvelope<T>> {
  const token = readToken();
  const isFormData = options.body instanceof FormData;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined && !isFormData) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, API_TIMEOUT_MS);
  const abortWithCaller = () => controller.abort();
  options.signal?.addEventListener('abort', abortWithCaller, { once: true });
  let response: Response;
  try {
    response = await fetch(urlFor(path, options.query), {
      method,
      headers,
      body: options.body === undefined ? undefined : isFormData ? (options.body as FormData) : JSON.stringify(options.body),
      signal: controller.signal,
    });
  } catch (error) {
    throw new ApiError(options.fallback ?? (timedOut ? 'The request timed out' : (error as Error).message), 0);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', abortWithCaller);
  }

  const body: unknown = await response.json().catch(() => undefined);
  if (response.status === 401 && token) {
    clearSession();
    notify(SESSION_EXPIRED_MESSAGE, 'error');
    throw new ApiError(SESSION_EXPIRED_MESSAGE, 401, body);
  }
  if (!response.ok || (body as ApiEnvelope<T> | undefined)?.success === false) {
    throw new ApiError(serverMessage(body) ?? options.fallback ?? `Request failed (${response.status})`, response.status, body);
  }
  return body as ApiEnvelope<T>;
}

/** Calls the API and returns the envelope's `data`. */
export async function apiData<T>(method: HttpMethod, path: string, options: RequestOptions = {}): Promise<T> {
  return (await apiRequest<T>(method, path, options)).data;
}
