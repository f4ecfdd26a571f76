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
 *
 * A request admitted without a reservation (the ledger was unreachable, and none of its
 * budgets is a hard cap) reports its cost with `spend` instead of `settle`, so that its
 * spend still reaches the counters of its budgets.
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
  /**
   * Adds spend that was never reserved (a request admitted while the ledger was
   * unreachable) to each scope's spent; `scopes` are those the request would have
   * reserved on (limits do not matter: nothing is refused). A scope given with a seed
   * gets the spend only if its counter is already started: one not seeded yet will be
   * seeded from the database, whose usage events include this request, so adding it
   * too would count it twice (a seed read before the request's event reaches the
   * database misses it, as for a settlement whose scope Redis lost). A scope without a
   * seed gets it as a reservation would (from 0). Idempotent per reservation id: a
   * second spend of the same id (within 2 × the default ttl of the first) does nothing;
   * it does not settle a reservation of that id. Never fails for an unreachable store:
   * kept and applied like settle.
   */
  spend(reservationId: string, scopes: readonly ScopeLimit[], actualMicros: bigint): Promise<void>;
  /** Throws LedgerUnavailableError when the backing store is unreachable. */
  read(scope: string, seed?: SeedSpend): Promise<ScopeBalance>;
  close(): Promise<void>;
}
