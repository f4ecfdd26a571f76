/**
 * SpendLedger: budget counters with atomic reservations.
 *
 * Counters start from the system of record: a scope given with `seed` is seeded once,
 * before its first use, with what that function answers (the spend already recorded in
 * the database for its window) — when it is new, when the in-process ledger restarts,
 * or when Redis lost it. Whoever seeds first wins; later seeds of the same scope do
 * nothing.
 *
 * A request reserves its worst-case cost on every budget scope that applies to it
 * (key, group, team — each a string such as `team:<id>:2026-11`) before it is sent.
 * Either all scopes admit the reservation or none is touched. When the request ends,
 * `settle` replaces the reservation with the actual cost (which becomes spend);
 * `release` drops it without spending (the request never reached the provider).
 * Reservations not settled or released within `ttlMs` expire on their own.
 */
/** Answers the spend already recorded for a scope (micro-units). */
export type SeedSpend = () => Promise<bigint>;

export interface ScopeLimit {
  scope: string;
  /** Budget for the scope in micro-units; null = no limit (still counted). */
  limitMicros: bigint | null;
  /** Where the counter starts when the ledger does not know the scope yet (default 0). */
  seed?: SeedSpend;
}

/** The ledger's backing store cannot be reached; nothing was reserved. */
export class LedgerUnavailableError extends Error {
  constructor(options?: { cause?: unknown }) {
    super('the spend ledger is unreachable', options);
    this.name = 'LedgerUnavailableError';
  }
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
  /** Throws LedgerUnavailableError, quickly, when the backing store is unreachable. */
  reserve(request: ReserveRequest): Promise<ReserveResult>;
  /**
   * Idempotent: settling an unknown or already-settled reservation does nothing. Never
   * fails for an unreachable store: the settlement is kept and applied when it is back.
   */
  settle(reservationId: string, actualMicros: bigint): Promise<void>;
  /** Idempotent: releasing an unknown or finished reservation does nothing. Kept like settle. */
  release(reservationId: string): Promise<void>;
  /** Throws LedgerUnavailableError when the backing store is unreachable. */
  read(scope: string, seed?: SeedSpend): Promise<ScopeBalance>;
  close(): Promise<void>;
}
