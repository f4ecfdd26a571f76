/**
 * SpendLedger: budget counters with atomic reservations.
 *
 * A request reserves its worst-case cost on every budget scope that applies to it
 * (key, group, team — each a string such as `team:<id>:2026-11`) before it is sent.
 * Either all scopes admit the reservation or none is touched. When the request ends,
 * `settle` replaces the reservation with the actual cost (which becomes spend);
 * `release` drops it without spending (the request never reached the provider).
 * Reservations not settled or released within `ttlMs` expire on their own.
 */
export interface ScopeLimit {
  scope: string;
  /** Budget for the scope in micro-units; null = no limit (still counted). */
  limitMicros: bigint | null;
}

export interface ReserveRequest {
  reservationId: string;
  scopes: ScopeLimit[];
  amountMicros: bigint;
  /** Expiry of an unsettled reservation (default 5 minutes). */
  ttlMs?: number;
}

export interface ScopeBalance {
  spentMicros: bigint;
  reservedMicros: bigint;
}

/**
 * Admitted: each scope's balance once the reservation is counted (in the order the
 * scopes were given), so callers learn what is left without reading again.
 */
export type ReserveResult =
  | { ok: true; balances: ScopeBalance[] }
  | { ok: false; scope: string; limitMicros: bigint; spentMicros: bigint; reservedMicros: bigint };

export interface SpendLedger {
  reserve(request: ReserveRequest): Promise<ReserveResult>;
  /** Idempotent: settling an unknown or already-settled reservation does nothing. */
  settle(reservationId: string, actualMicros: bigint): Promise<void>;
  /** Idempotent: releasing an unknown or finished reservation does nothing. */
  release(reservationId: string): Promise<void>;
  read(scope: string): Promise<ScopeBalance>;
  close(): Promise<void>;
}
