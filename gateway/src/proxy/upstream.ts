// Sends a request to a provider with undici and types its failures: a refused or
// unreachable host is 502, a timeout 504 — the original error kept as the cause.
// Connections to providers are kept alive in this module's own agent (not the global
// dispatcher, which Node's built-in fetch may have installed from its own undici).
import { Agent, request } from 'undici';
import { UpstreamError } from '../errors.ts';

export type UpstreamResponse = Awaited<ReturnType<typeof request>>;

const providers = new Agent();

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

export async function sendUpstream(
  url: string,
  init: { headers: Record<string, string>; body: string; timeoutMs: number; signal: AbortSignal },
): Promise<UpstreamResponse> {
  try {
    return await request(url, {
      method: 'POST',
      headers: init.headers,
      body: init.body,
      headersTimeout: init.timeoutMs,
      bodyTimeout: init.timeoutMs,
      signal: init.signal,
      dispatcher: providers,
    });
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (TIMEOUT_CODES.has(code)) throw new UpstreamError(504, 'The provider did not answer in time', error);
    throw new UpstreamError(502, 'The provider could not be reached', error);
  }
}
