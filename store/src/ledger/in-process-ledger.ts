/**
 * In-process SpendLedger for the embedded mode: the Redis ledger's twin, kept in Maps.
 *
 * Same rules as `redis-ledger.ts`: a scope counts `spent` and `reserved`, plus one hold
 * per live reservation (amount, expiry). A hold counts in `reserved` until it is settled,
 * released or expires; expired holds leave `reserved` the next time their scope is
 * reserved on or read. The reservation record (its scopes) is kept one more ttl after
 * the hold expires, so a late settle still records the spend; after that it is
 * forgotten and settle does nothing. Amounts are exact bigints here; the Redis ledger is
 * exact below 2^53 micros, which `validation.ts` enforces for both. A scope given with a
 * seed starts from it (one seeding at a time per scope); since this ledger lives in the
 * process, every start seeds its counters again from the database.
 */
import type { ReserveRequest, ReserveResult, ScopeBalance, ScopeLimit, SeedSpend, SpendLedger } from './types.ts';
import { assertValidMicros, SPEND_REMEMBERED_MS, validateReserveRequest, validateScopes } from './validation.ts';

interface Hold {
  amountMicros: bigint;
  expiresAt: number;
}

interface ScopeState {
  spentMicros: bigint;
  reservedMicros: bigint;
  holds: Map<string, Hold>;
  /** No hold expires before this time, so most calls skip the scan of `holds`. */
  nextExpiryAt: number;
}

/** Entries kept each until its own time, then forgotten at the next look past it (no timer). */
class Remembered<V> {
  readonly #entries = new Map<string, { value: V; forgetAt: number }>();
  #nextForgetAt = Number.POSITIVE_INFINITY;

  get(id: string, now: number): V | undefined {
    if (now > this.#nextForgetAt) {
      this.#nextForgetAt = Number.POSITIVE_INFINITY;
      for (const [key, { forgetAt }] of this.#entries) {
        if (now > forgetAt) this.#entries.delete(key);
        else this.#nextForgetAt = Math.min(this.#nextForgetAt, forgetAt);
      }
    }
    return this.#entries.get(id)?.value;
  }

  set(id: string, value: V, forgetAt: number): void {
    this.#entries.set(id, { value, forgetAt });
    this.#nextForgetAt = Math.min(this.#nextForgetAt, forgetAt);
  }

  delete(id: string): void {
    this.#entries.delete(id);
  }

  clear(): void {
    this.#entries.clear();
  }
}

/** `clock` gives milliseconds since the epoch; tests inject one to move time. */
export function createInProcessLedger(clock: () => number = Date.now): SpendLedger {
  const scopeStates = new Map<string, ScopeState>();
  /** Each reservation's scopes, until one ttl after its hold expired. */
  const reservations = new Remembered<string[]>();
  const seeding = new Map<string, Promise<void>>();
  /** Ids whose unreserved spend was counted. */
  const spendsCounted = new Remembered<true>();

  function newScopeState(spentMicros: bigint): ScopeState {
    return { spentMicros, reservedMicros: 0n, holds: new Map(), nextExpiryAt: Number.POSITIVE_INFINITY };
  }

  /** Creates the scope's counter from its seed, once, however many callers ask at the same time. */
  async function ensureSeeded(scope: string, seed: SeedSpend | undefined): Promise<void> {
    if (seed === undefined || scopeStates.has(scope)) return;
    let pending = seeding.get(scope);
    if (pending === undefined) {
      pending = seed()
        .then((spentMicros) => {
          if (!scopeStates.has(scope)) scopeStates.set(scope, newScopeState(spentMicros));
        })
        .finally(() => seeding.delete(scope));
      seeding.set(scope, pending);
    }
    await pending;
  }

  function dropExpiredHolds(state: ScopeState, now: number): void {
    if (now < state.nextExpiryAt) return;
    let nextExpiryAt = Number.POSITIVE_INFINITY;
    for (const [reservationId, hold] of state.holds) {
      if (hold.expiresAt <= now) {
        state.reservedMicros -= hold.amountMicros;
        state.holds.delete(reservationId);
      } else {
        nextExpiryAt = Math.min(nextExpiryAt, hold.expiresAt);
      }
    }
    state.nextExpiryAt = nextExpiryAt;
  }

  function currentScopeState(scope: string, now: number): ScopeState {
    let state = scopeStates.get(scope);
    if (state === undefined) {
      state = newScopeState(0n);
      scopeStates.set(scope, state);
    }
    dropExpiredHolds(state, now);
    return state;
  }

  function finish(reservationId: string, actualMicros: bigint | null): void {
    const now = clock();
    const scopes = reservations.get(reservationId, now);
    if (scopes === undefined) return;
    reservations.delete(reservationId);
    for (const scope of scopes) {
      const state = currentScopeState(scope, now);
      const hold = state.holds.get(reservationId);
      if (hold !== undefined) {
        state.reservedMicros -= hold.amountMicros;
        state.holds.delete(reservationId);
      }
      if (actualMicros !== null) state.spentMicros += actualMicros;
    }
  }

  return {
    async reserve(request: ReserveRequest): Promise<ReserveResult> {
      const ttlMs = validateReserveRequest(request);
      const { reservationId, amountMicros } = request;
      for (const { scope, seed } of request.scopes) if (seed !== undefined && !scopeStates.has(scope)) await ensureSeeded(scope, seed);
      const now = clock();
      const checked = request.scopes.map(({ scope, limitMicros }) => ({ scope, limitMicros, state: currentScopeState(scope, now) }));
      const balances = () => checked.map(({ state }) => ({ spentMicros: state.spentMicros, reservedMicros: state.reservedMicros }));
      if (reservations.get(reservationId, now) !== undefined) return { ok: true, balances: balances() };

      for (const { scope, limitMicros, state } of checked) {
        if (limitMicros !== null && state.spentMicros + state.reservedMicros + amountMicros > limitMicros) {
          const { spentMicros, reservedMicros } = state;
          return { ok: false, scope, limitMicros, spentMicros, reservedMicros };
        }
      }

      const expiresAt = now + ttlMs;
      for (const { state } of checked) {
        state.reservedMicros += amountMicros;
        state.holds.set(reservationId, { amountMicros, expiresAt });
        state.nextExpiryAt = Math.min(state.nextExpiryAt, expiresAt);
      }
      reservations.set(
        reservationId,
        request.scopes.map(({ scope }) => scope),
        expiresAt + ttlMs,
      );
      return { ok: true, balances: balances() };
    },

    async settle(reservationId: string, actualMicros: bigint): Promise<void> {
      assertValidMicros('actualMicros', actualMicros);
      finish(reservationId, actualMicros);
    },

    async release(reservationId: string): Promise<void> {
      finish(reservationId, null);
    },

    async spend(reservationId: string, scopes: readonly ScopeLimit[], actualMicros: bigint): Promise<void> {
      assertValidMicros('actualMicros', actualMicros);
      validateScopes(scopes);
      const now = clock();
      if (spendsCounted.get(reservationId, now)) return;
      for (const { scope, seed } of scopes) {
        // A scope with a seed not started yet (or being seeded) gets this spend from its seed.
        if (seed !== undefined && !scopeStates.has(scope)) continue;
        currentScopeState(scope, now).spentMicros += actualMicros;
      }
      spendsCounted.set(reservationId, true, now + SPEND_REMEMBERED_MS);
    },

    async read(scope: string, seed?: SeedSpend): Promise<ScopeBalance> {
      await ensureSeeded(scope, seed);
      const state = scopeStates.get(scope);
      if (state === undefined) return { spentMicros: 0n, reservedMicros: 0n };
      dropExpiredHolds(state, clock());
      return { spentMicros: state.spentMicros, reservedMicros: state.reservedMicros };
    },

    async close(): Promise<void> {
      scopeStates.clear();
      reservations.clear();
      spendsCounted.clear();
    },
  };
}
