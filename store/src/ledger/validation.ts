/**
 * Argument checks shared by both ledgers, so they refuse the same inputs.
 *
 * Amounts and limits stay below 2^53 micros (about 9 billion currency units): the Redis
 * ledger compares them in Lua, whose numbers are doubles and exact only up to there.
 */
import type { ReserveRequest, ScopeLimit } from './types.ts';

export const DEFAULT_RESERVATION_TTL_MS = 5 * 60_000;

/** How long a ledger remembers that a reservation id's unreserved spend was counted (`spend` is idempotent within it). */
export const SPEND_REMEMBERED_MS = 2 * DEFAULT_RESERVATION_TTL_MS;

/** Largest amount or limit either ledger accepts: 2^53 - 1 micros. */
export const MAX_MICROS = 2n ** 53n - 1n;

export function assertValidMicros(name: string, micros: bigint): void {
  if (micros < 0n || micros > MAX_MICROS) {
    throw new RangeError(`${name} must be between 0 and ${MAX_MICROS} micros, got ${micros}`);
  }
}

/** Checks that no scope appears twice and every limit is in range. */
export function validateScopes(scopes: readonly ScopeLimit[]): void {
  const seen = new Set<string>();
  for (const { scope, limitMicros } of scopes) {
    if (seen.has(scope)) throw new RangeError(`scope ${scope} appears twice in one reservation`);
    seen.add(scope);
    if (limitMicros !== null) assertValidMicros(`limit of ${scope}`, limitMicros);
  }
}

/** Checks a reserve request and returns its time to live in milliseconds. */
export function validateReserveRequest(request: ReserveRequest): number {
  assertValidMicros('amountMicros', request.amountMicros);
  validateScopes(request.scopes);
  const ttlMs = request.ttlMs ?? DEFAULT_RESERVATION_TTL_MS;
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) {
    throw new RangeError(`ttlMs must be a positive integer, got ${ttlMs}`);
  }
  return ttlMs;
}
