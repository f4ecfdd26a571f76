// A file the API answers (an export): fetched with the session's bearer token, as every API
// call is — a plain link would carry none — and handed to the browser as a Blob download.
import { API_ROOT } from '../shared/config.ts';
import { readToken } from '../shared/session.ts';
import { ApiError } from './client.ts';

/** Fetches `path` with `params` and saves the file under the name the server gave (else `fallbackName`): answers that name. */
export async function downloadApiFile(path: string, params: URLSearchParams, options: { fallbackName: string; failure: string }): Promise<string> {
  const token = readToken();
  let response: Response;
  try {
    response = await fetch(`${API_ROOT}${path}?${params}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  } catch {
    throw new ApiError(options.failure, 0);
  }
  if (!response.ok) {
    const body: unknown = await response.json().catch(() => undefined);
    const message = (body as { message?: unknown } | undefined)?.message;
    throw new ApiError(typeof message === 'string' && message ? message : options.failure, response.status, body);
  }
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? options.fallbackName;
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // The click has handed the Blob to the download; revoked on the next turn.
  setTimeout(() => URL.revokeObjectURL(url), 0);
  return name;
}
