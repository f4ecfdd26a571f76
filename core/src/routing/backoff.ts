/**
 * How long to wait before retrying a provider: exponential backoff with full jitter
 * (a random wait up to base × 2^retry, capped), or the provider's `retry-after` when it
 * asks for a short one. A longer `retry-after` means "not now": fail over instead.
 */

export interface BackoffOptions {
  baseMs: number;
  capMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 250, capMs: 2_000 };

/**
 * The wait before retry number `retry` (0 for the first retry), or undefined when the
 * provider's retry-after is longer than the cap (do not retry this upstream now).
 * @example retryDelayMs({ retry: 1, random: () => 0.5 }) // 250 (half of 250 × 2¹)
 */
export function retryDelayMs(input: {
  retry: number;
  random: () => number;
  retryAfterMs?: number | undefined;
  options?: BackoffOptions;
}): number | undefined {
  const { baseMs, capMs } = input.options ?? DEFAULT_BACKOFF;
  if (input.retryAfterMs !== undefined) return input.retryAfterMs <= capMs ? input.retryAfterMs : undefined;
  return Math.floor(input.random() * Math.min(capMs, baseMs * 2 ** input.retry));
}

/** A `retry-after` header (seconds or an HTTP date) in milliseconds from `now`. */
export function parseRetryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
