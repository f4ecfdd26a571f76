/**
 * Redis SpendLedger for the scaled mode: every gateway shares the counters, and each
 * change is one Lua script, so concurrent requests never overshoot a limit.
 *
 * Keys (P = prefix, S = scope, R = reservation id, T = the hash tag of the scopes, below):
 *   P:scope:S        hash  spent, reserved (integer micros as strings) and one field
 *                          `hold:R` = amount per live reservation on the scope
 *   P:expiry:S       zset  R scored by the hold's expiry (ms, Redis server time): one
 *                          ttl after reserve; for a lease, its hold time (10 s by
 *                          default) after reserve and after each update, but never
 *                          more than one ttl after reserve
 *   P:reservation:T:R  string  the reservation's scopes as JSON; expires 2 × ttl after
 *                          reserve (one ttl as a hold, one more so a late settle still
 *                          records the spend); a lease's also 2 × ttl after each update
 *   P:reservation:T:R:spent  string  for a lease (R = `lease:<uuid>`, see redis-leases.ts):
 *                          the spend it has moved into spent so far; expires with the record
 *   P:spent:T:R      string  marks that the unreserved spend of R (see `spend` below) is
 *                          in spent; expires 2 × the default ttl (10 minutes) after SPEND
 *
 * Every script but SEED and SPEND first drops the expired holds of each scope it touches
 * (ZRANGEBYSCORE on the expiry zset, subtract each `hold:R` from reserved), so an expired
 * reservation stops counting without any sweeper. `reserve` checks spent + reserved +
 * amount ≤ limit on every scope with a limit, and only if all pass adds the hold to each
 * scope and writes the record. `settle` / `release` read the record's scopes, then run
 * one script that re-checks the record (it names every key it touches, as Redis Cluster
 * requires), frees each scope's hold, adds the actual cost to spent (settle only) and
 * deletes the record, so a second call finds nothing and does nothing.
 *
 * Counters change with HINCRBY on decimal strings (exact 64-bit integers); only the limit
 * check goes through Lua numbers (doubles), exact while spent + reserved + amount stays
 * below 2^53 micros — `validation.ts` keeps each amount and limit below it. Time is the
 * Redis server's TIME, so gateways with skewed clocks agree on expiry.
 *
 * Redis Cluster: each script touches several scopes and a record at once, so all of
 * them must hash to one slot. A scope names its slot with a hash tag, as Redis reads
 * one: its first `{…}` (a budget's counter carries its team's, `budgetLedgerScope`), so
 * every scope a request reserves on (key, group, team) shares the team's slot. The
 * scopes given together must carry the same tag (else the ledger throws); their
 * reservation's record and spend marker carry it too (T above; without a tag the keys
 * are P:reservation:R and P:spent:R). A scope without a tag is its own tag (its keys
 * are P:scope:{S} and P:expiry:{S}), so reading it works on a cluster; reserving on
 * it needs one Redis server. The prefix must hold no `{`. A reservation's
 * record is found through its scopes, which this process remembers from reserve to
 * settle; one it no longer remembers (past 100,000 unfinished) is found only when its
 * scopes carry no tag, and otherwise expires with its ttl.
 *
 * Seeding: a scope hash carries `seeded` once its counter was started from the
 * database. `reserve` (and `read`) given scopes with a seed answer which of them are not
 * seeded yet instead of reserving; the ledger then asks each seed and runs SEED, which
 * adds the seeded spend only if nobody seeded the scope meanwhile, and reserves again.
 * So counters that Redis lost (a restart without persistence, an eviction) are rebuilt
 * from the database before anything is admitted on them.
 *
 * Unreserved spend: `spend` (a request admitted while Redis was unreachable) runs SPEND,
 * which does nothing if the marker `P:spent:R` exists, and otherwise adds the cost to
 * spent on each scope that needs no seed or is seeded already (one not seeded will get
 * it from the database) and sets the marker. It does not use the reservation record,
 * which FINISH would take for a changed one.
 *
 * Leases (the default): a gateway reserves a slice of a budget with RESERVE and admits
 * requests against it in memory; UPDATE_LEASE moves their spend into spent every 250 ms,
 * renews the lease's short hold while its gateway lives, and finishes the lease.
 * `redis-leases.ts` describes them and the bounds they keep.
 *
 * Outages: give the ledger a connection with `enableOfflineQueue: false` and a
 * `commandTimeout`, so an unreachable Redis fails each command at once: `reserve` and
 * `read` throw LedgerUnavailableError; `settle`, `release` and `spend` keep the change in
 * memory and apply it when Redis answers again (retried every second, bounded, in the
 * order they came), so the spend of requests served during an outage — reserved before
 * it, or admitted unreserved during it — still reaches the counters.
 * The ledger does not close the connection it is given.
 */
import { ReplyError } from 'ioredis';
import { type Logger, sharedLogger } from '../logger.ts';
import { isFailoverReply, type RedisConnection } from '../redis-connection.ts';
import { type LuaScript, luaScript, readLuaFile, runScript } from '../redis-script.ts';
import { createLeasedLedger, type LeaseOptions } from './redis-leases.ts';
import { LedgerUnavailableError, type ReserveRequest, type ReserveResult, type ScopeBalance, type ScopeLimit, type SeedSpend, type SpendLedger } from './types.ts';
import { assertValidMicros, SPEND_REMEMBERED_MS, validateReserveRequest, validateScopes } from './validation.ts';

export interface RedisLedgerOptions {
  redis: RedisConnection;
  /** Start of every key the ledger writes, e.g. `sg:ledger`. */
  prefix: string;
  /** How often settlements kept during an outage are tried again (default 1 s). */
  retryMs?: number;
  /** Budget leases (default on, with the defaults of `LeaseOptions`); false: one RESERVE per request. */
  leases?: LeaseOptions | false;
  /** Where what goes wrong in the background is reported (default: the shared logger). */
  log?: Logger;
}

/** Settlements and spends kept while Redis is unreachable; past this many the oldest are dropped (and logged). */
const MAX_DEFERRED_CHANGES = 100_000;

const LUA_HELPERS = readLuaFile(new URL('./ledger-helpers.lua', import.meta.url));

/**
 * KEYS: reservation, then (scope, expiry) per scope.
 * ARGV: reservation id, amount, ttl ms, scopes JSON, one limit per scope ('' = none),
 * then one flag per scope ('1' = must be seeded first), then for a lease the amount
 * wanted, the share of the headroom it may take (a divisor) and how long its hold lasts
 * (ms, at most the ttl; all three absent otherwise: the hold lasts the ttl).
 * A lease holds min(wanted, smallest headroom of the limited scopes / share), and never
 * less than the amount: near a limit it is a plain reservation of the amount. The record
 * expires 2 × ttl after reserve either way.
 * Returns {1, spent, reserved per scope…, amount held} when admitted (or already held),
 * {0, scope index, spent, reserved} when refused, {2, scope index…} when scopes
 * must be seeded first (nothing reserved).
 */
const RESERVE = luaScript(LUA_HELPERS, readLuaFile(new URL('./ledger-reserve.lua', import.meta.url)));

/**
 * KEYS: reservation, then (scope, expiry) per scope.
 * ARGV: reservation id, the scopes JSON the caller read, actual cost ('' = release).
 * Returns 1 when finished, 0 when there was nothing to finish, -1 when the record
 * changed since the caller read it (read again).
 */
const FINISH = luaScript(LUA_HELPERS, readLuaFile(new URL('./ledger-finish.lua', import.meta.url)));

/**
 * KEYS: scope, expiry. ARGV: '1' when the scope must be seeded first.
 * Returns {spent, reserved} after dropping expired holds, or {} when not seeded.
 */
const READ = luaScript(LUA_HELPERS, readLuaFile(new URL('./ledger-read.lua', import.meta.url)));

/**
 * A lease's progress (see redis-leases.ts). KEYS: the lease's reservation record, its
 * spent record, then (scope, expiry) per scope. ARGV: lease id, the spend its requests
 * have settled in total, the hold it still needs, '1' to finish it, then (when not
 * finishing) how long the hold lasts from now and the records from now (ms).
 * Adds to each scope's spent what the spent record does not count yet, and lowers the
 * lease's hold to the one given (never raises it); finishing frees the hold and deletes
 * both records. Otherwise it renews the hold (ZADD XX: a hold that already expired stays
 * gone) and both records. Totals rather than increments, so a repeated or late update
 * does nothing twice. Amounts are compared as decimal strings and changed with HINCRBY:
 * exact. Returns {1, spent, reserved per scope…, 1 if it renewed a hold still there
 * else 0}, or {0} when the lease's record is gone (expired, or Redis lost it).
 */
const UPDATE_LEASE = luaScript(LUA_HELPERS, readLuaFile(new URL('./ledger-update-lease.lua', import.meta.url)));

/**
 * Unreserved spend. KEYS: the spend's marker, then each scope. ARGV: the actual cost, how
 * long the marker lasts (ms), then one flag per scope ('1' = only if already seeded).
 * Returns 1 when it added the spend, 0 when the marker says it was added before.
 */
const SPEND = luaScript(readLuaFile(new URL('./ledger-spend.lua', import.meta.url)));

/** KEYS: scope. ARGV: seeded spend. Adds it unless the scope was seeded meanwhile. */
const SEED = luaScript(readLuaFile(new URL('./ledger-seed.lua', import.meta.url)));

const RECORD_CHANGED = -1;
/** Unfinished reservations whose scopes a gateway keeps in memory to settle in one round trip. */
const MAX_RESERVATIONS_REMEMBERED = 100_000;

/** Runs a script; an unreachable Redis (not a script error; on a cluster, also a failover under way) becomes LedgerUnavailableError. */
async function runLedgerScript(redis: RedisConnection, script: LuaScript, keys: string[], args: string[]): Promise<unknown> {
  try {
    return await runScript(redis, script, keys, args);
  } catch (error) {
    if (error instanceof ReplyError && !isFailoverReply(error as Error)) throw error;
    throw new LedgerUnavailableError({ cause: error });
  }
}

function toMicros(value: unknown): bigint {
  return typeof value === 'string' ? BigInt(value) : 0n;
}

/** Balances a script answers as spent, reserved pairs from `reply[from]` on. */
function balancesOf(reply: unknown[], count: number, from: number): ScopeBalance[] {
  return Array.from({ length: count }, (_, index) => ({
    spentMicros: toMicros(reply[from + 2 * index]),
    reservedMicros: toMicros(reply[from + 2 * index + 1]),
  }));
}

/** A scope unreserved spend goes to: one with a seed (`onlyIfSeeded`) gets it only once seeded. */
export interface SpendScope {
  scope: string;
  onlyIfSeeded: boolean;
}

/** What one RESERVE answers (scope indexes count from 0). */
export type ReserveReply =
  | { outcome: 'admitted'; balances: ScopeBalance[]; heldMicros: bigint }
  | { outcome: 'refused'; scopeIndex: number; balance: ScopeBalance }
  | { outcome: 'unseeded'; scopeIndexes: number[] };

/**
 * The ledger's steps in Redis, one script each, shared by the plain ledger below and
 * the leases of `redis-leases.ts`. Each sends its command before its first await, so
 * what a caller notes just before calling a step is what Redis has seen of this
 * connection when the step runs (Redis runs one connection's commands in order, and
 * redis-script.ts keeps a script Redis does not know yet in its place among them).
 */
export interface RedisLedgerSteps {
  redis: RedisConnection;
  /** Reserves `amountMicros`, or with `lease` holds up to `wantedMicros` for `holdMs` (see RESERVE). */
  reserve(
    reservationId: string,
    scopes: readonly ScopeLimit[],
    amountMicros: bigint,
    ttlMs: number,
    lease?: { wantedMicros: bigint; headroomShare: number; holdMs: number },
  ): Promise<ReserveReply>;
  /** Seeds the scopes at these indexes (each once per process at a time). */
  seed(scopes: readonly ScopeLimit[], scopeIndexes: number[]): Promise<void>;
  /** A scope's balance, or undefined when it has a seed and must be seeded first. */
  read(scope: string, seeded: boolean): Promise<ScopeBalance | undefined>;
  /** Adds unreserved spend once per id, skipping the scopes `onlyIfSeeded` not seeded yet (see SPEND). */
  spend(reservationId: string, scopes: readonly SpendScope[], actualMicros: bigint): Promise<void>;
  /**
   * A lease's settled spend and remaining hold, and unless it finishes, its hold renewed
   * for `holdMs` and its records for `recordMs` (see UPDATE_LEASE). Answers the balances
   * and whether the hold was still there; undefined when its record is gone.
   */
  updateLease(
    leaseId: string,
    scopes: readonly string[],
    settledMicros: bigint,
    holdMicros: bigint,
    finish: boolean,
    holdMs: number,
    recordMs: number,
  ): Promise<{ balances: ScopeBalance[]; holding: boolean } | undefined>;
}

/** A key's hash tag as Redis Cluster reads it: its first `{…}` with something inside, or '' when it has none. */
export function hashTagOf(name: string): string {
  const open = name.indexOf('{');
  const close = open === -1 ? -1 : name.indexOf('}', open + 1);
  return close > open + 1 ? name.slice(open, close + 1) : '';
}

/** The hash tag the scopes of one reservation share (see the top of this file). */
function sharedHashTag(scopes: readonly string[]): string {
  const tag = hashTagOf(scopes[0] ?? '');
  const other = scopes.find((scope) => hashTagOf(scope) !== tag);
  if (other !== undefined) throw new Error(`the scopes of one reservation must share one hash tag: ${JSON.stringify(scopes[0])} and ${JSON.stringify(other)} do not`);
  return tag;
}

/** The ledger's keys under `prefix` (see the top of this file). */
function ledgerKeys(prefix: string) {
  const tagged = (tag: string) => (tag === '' ? '' : `${tag}:`);
  return {
    reservation: (reservationId: string, tag: string) => `${prefix}:reservation:${tagged(tag)}${reservationId}`,
    spent: (reservationId: string, tag: string) => `${prefix}:spent:${tagged(tag)}${reservationId}`,
    /** A scope's hash and expiry zset: a scope without a tag is its own, so that its two keys share a slot. */
    scope: (scope: string) => {
      const name = hashTagOf(scope) === '' ? `{${scope}}` : scope;
      return [`${prefix}:scope:${name}`, `${prefix}:expiry:${name}`];
    },
  };
}

function createRedisLedgerSteps(redis: RedisConnection, prefix: string): RedisLedgerSteps {
  const keys = ledgerKeys(prefix);
  const scopeKeys = keys.scope;

  /** Seedings under way in this process: a burst of requests on a new scope asks the database once. */
  const seeding = new Map<string, Promise<void>>();
  function seedScope(scope: string, seed: SeedSpend): Promise<void> {
    let pending = seeding.get(scope);
    if (pending === undefined) {
      pending = (async () => {
        const spentMicros = await seed();
        await runLedgerScript(redis, SEED, [scopeKeys(scope)[0]!], [spentMicros.toString()]);
      })().finally(() => seeding.delete(scope));
      seeding.set(scope, pending);
    }
    return pending;
  }

  return {
    redis,

    async reserve(reservationId, scopes, amountMicros, ttlMs, lease) {
      const args = [
        reservationId,
        amountMicros.toString(),
        String(ttlMs),
        JSON.stringify(scopes.map(({ scope }) => scope)),
        ...scopes.map(({ limitMicros }) => (limitMicros === null ? '' : limitMicros.toString())),
        ...scopes.map(({ seed }) => (seed === undefined ? '' : '1')),
      ];
      if (lease !== undefined) args.push(lease.wantedMicros.toString(), String(lease.headroomShare), String(lease.holdMs));
      const scopeNames = scopes.map(({ scope }) => scope);
      const scriptKeys = [keys.reservation(reservationId, sharedHashTag(scopeNames)), ...scopeNames.flatMap(scopeKeys)];
      const reply = (await runLedgerScript(redis, RESERVE, scriptKeys, args)) as [number, ...unknown[]];
      if (reply[0] === 1) return { outcome: 'admitted', balances: balancesOf(reply, scopes.length, 1), heldMicros: toMicros(reply[2 * scopes.length + 1]) };
      if (reply[0] === 2) return { outcome: 'unseeded', scopeIndexes: (reply.slice(1) as number[]).map((scopeNumber) => scopeNumber - 1) };
      const [, scopeNumber, spent, reserved] = reply as [number, number?, string?, string?];
      const scopeIndex = (scopeNumber ?? 0) - 1;
      if (scopes[scopeIndex]?.limitMicros == null) throw new Error(`unexpected reserve reply from Redis: ${JSON.stringify(reply)}`);
      return { outcome: 'refused', scopeIndex, balance: { spentMicros: toMicros(spent), reservedMicros: toMicros(reserved) } };
    },

    async seed(scopes, scopeIndexes) {
      await Promise.all(
        scopeIndexes.map((index) => {
          const { scope, seed } = scopes[index]!;
          return seedScope(scope, seed!);
        }),
      );
    },

    async read(scope, seeded) {
      const reply = (await runLedgerScript(redis, READ, scopeKeys(scope), [seeded ? '1' : ''])) as unknown[];
      return reply.length === 0 ? undefined : balancesOf(reply, 1, 0)[0];
    },

    async spend(reservationId, scopes, actualMicros) {
      const scopeNames = scopes.map(({ scope }) => scope);
      const scriptKeys = [keys.spent(reservationId, sharedHashTag(scopeNames)), ...scopeNames.map((scope) => scopeKeys(scope)[0]!)];
      const args = [actualMicros.toString(), String(SPEND_REMEMBERED_MS), ...scopes.map(({ onlyIfSeeded }) => (onlyIfSeeded ? '1' : ''))];
      await runLedgerScript(redis, SPEND, scriptKeys, args);
    },

    async updateLease(leaseId, scopes, settledMicros, holdMicros, finish, holdMs, recordMs) {
      const record = keys.reservation(leaseId, sharedHashTag(scopes));
      const scriptKeys = [record, `${record}:spent`, ...scopes.flatMap(scopeKeys)];
      const args = [leaseId, settledMicros.toString(), holdMicros.toString(), finish ? '1' : '', String(holdMs), String(recordMs)];
      const reply = (await runLedgerScript(redis, UPDATE_LEASE, scriptKeys, args)) as unknown[];
      if (reply[0] !== 1) return undefined;
      return { balances: balancesOf(reply, scopes.length, 1), holding: reply[2 * scopes.length + 1] === 1 };
    },
  };
}

/**
 * The Redis ledger: with leases (the default) each gateway admits most requests from a
 * slice of the budget it holds (`redis-leases.ts`); with `leases: false` every request
 * is one RESERVE and one FINISH, as described at the top of this file.
 */
export function createRedisLedger({ redis, prefix, retryMs = 1_000, leases = {}, log = sharedLogger() }: RedisLedgerOptions): SpendLedger {
  const steps = createRedisLedgerSteps(redis, prefix);
  const plain = createPlainRedisLedger(steps, prefix, retryMs, log);
  return leases === false ? plain : createLeasedLedger(steps, plain, leases, log);
}

/** A change the plain ledger keeps while Redis is unreachable. */
type DeferredChange =
  /** `scopesJson`: the reservation's scopes as this process reserved them, when it remembers them. */
  | { kind: 'finish'; reservationId: string; actualMicros: bigint | null; scopesJson: string | undefined }
  | { kind: 'spend'; reservationId: string; scopes: readonly SpendScope[]; actualMicros: bigint };

function createPlainRedisLedger(steps: RedisLedgerSteps, prefix: string, retryMs: number, log: Logger): SpendLedger {
  const { redis } = steps;
  const keys = ledgerKeys(prefix);
  /**
   * Changes Redis could not take yet, oldest first, by kind and reservation id: a later
   * settle or release of an id replaces the one kept, but not its unreserved spend.
   */
  const deferred = new Map<string, DeferredChange>();
  let retryTimer: NodeJS.Timeout | undefined;

  /** Reservations this process made and has not finished: their record's scopes, newest last. */
  const reservedHere = new Map<string, string>();
  function rememberReservation(reservationId: string, scopesJson: string): void {
    reservedHere.delete(reservationId);
    reservedHere.set(reservationId, scopesJson);
    // Only a hint: past the cap the oldest are forgotten (their finish reads the record).
    if (reservedHere.size > MAX_RESERVATIONS_REMEMBERED) reservedHere.delete(reservedHere.keys().next().value as string);
  }

  /**
   * Settles or releases: the FINISH script needs the reservation's scope keys, which this
   * process knows when it made the reservation (one round trip) and otherwise reads from
   * the record first (an untagged one: see the top of this file). A record that changed
   * meanwhile is read again.
   */
  async function finish(reservationId: string, actualMicros: bigint | null, rememberedScopesJson: string | undefined): Promise<void> {
    let scopesJson = rememberedScopesJson;
    const recordKey = keys.reservation(reservationId, scopesJson === undefined ? '' : sharedHashTag(JSON.parse(scopesJson) as string[]));
    for (;;) {
      if (scopesJson === undefined) {
        const stored = await redis.get(recordKey).catch((error: unknown) => {
          throw new LedgerUnavailableError({ cause: error });
        });
        if (stored === null) return;
        scopesJson = stored;
      }
      const scopes = JSON.parse(scopesJson) as string[];
      const outcome = await runLedgerScript(
        redis,
        FINISH,
        [recordKey, ...scopes.flatMap(keys.scope)],
        [reservationId, scopesJson, actualMicros === null ? '' : actualMicros.toString()],
      );
      if (outcome !== RECORD_CHANGED) return;
      scopesJson = undefined;
    }
  }

  /** A settle or release of `reservationId`, with its scopes when this process remembers them (it forgets them here). */
  function finishing(reservationId: string, actualMicros: bigint | null): DeferredChange {
    const kept = deferred.get(`finish:${reservationId}`);
    const scopesJson = reservedHere.get(reservationId) ?? (kept?.kind === 'finish' ? kept.scopesJson : undefined);
    reservedHere.delete(reservationId);
    return { kind: 'finish', reservationId, actualMicros, scopesJson };
  }

  function apply(change: DeferredChange): Promise<void> {
    if (change.kind === 'spend') return steps.spend(change.reservationId, change.scopes, change.actualMicros);
    return finish(change.reservationId, change.actualMicros, change.scopesJson);
  }

  async function retryDeferred(): Promise<void> {
    retryTimer = undefined;
    for (const [key, change] of deferred) {
      try {
        await apply(change);
        deferred.delete(key);
      } catch (error) {
        if (!(error instanceof LedgerUnavailableError)) throw error;
        break;
      }
    }
    if (deferred.size > 0) retryTimer = setTimeout(() => void retryDeferred(), retryMs).unref();
  }

  /** Applies the change now, or keeps it for when Redis is back. */
  async function applyOrDefer(change: DeferredChange): Promise<void> {
    try {
      await apply(change);
    } catch (error) {
      if (!(error instanceof LedgerUnavailableError)) throw error;
      if (deferred.size >= MAX_DEFERRED_CHANGES) {
        const [oldestKey, oldest] = deferred.entries().next().value as [string, DeferredChange];
        deferred.delete(oldestKey);
        const what = oldest.kind === 'spend' ? 'unreserved spend' : 'settlement';
        log.error(`spend ledger: dropped the ${what} of ${oldest.reservationId}: too many kept while Redis is unreachable`);
      }
      deferred.set(`${change.kind}:${change.reservationId}`, change);
      retryTimer ??= setTimeout(() => void retryDeferred(), retryMs).unref();
    }
  }

  return {
    async reserve(request: ReserveRequest): Promise<ReserveResult> {
      const ttlMs = validateReserveRequest(request);
      const { reservationId, scopes, amountMicros } = request;
      for (;;) {
        const reply = await steps.reserve(reservationId, scopes, amountMicros, ttlMs);
        if (reply.outcome === 'unseeded') {
          await steps.seed(scopes, reply.scopeIndexes);
          continue;
        }
        if (reply.outcome === 'admitted') {
          rememberReservation(reservationId, JSON.stringify(scopes.map(({ scope }) => scope)));
          return { ok: true, balances: reply.balances };
        }
        const refused = scopes[reply.scopeIndex]!;
        return { ok: false, scope: refused.scope, limitMicros: refused.limitMicros!, ...reply.balance };
      }
    },

    async settle(reservationId: string, actualMicros: bigint): Promise<void> {
      assertValidMicros('actualMicros', actualMicros);
      await applyOrDefer(finishing(reservationId, actualMicros));
    },

    async release(reservationId: string): Promise<void> {
      await applyOrDefer(finishing(reservationId, null));
    },

    async spend(reservationId: string, scopes: readonly ScopeLimit[], actualMicros: bigint): Promise<void> {
      assertValidMicros('actualMicros', actualMicros);
      validateScopes(scopes);
      // Only whether each scope has a seed matters: the seeds themselves are not kept.
      const kept = scopes.map(({ scope, seed }) => ({ scope, onlyIfSeeded: seed !== undefined }));
      await applyOrDefer({ kind: 'spend', reservationId, scopes: kept, actualMicros });
    },

    async read(scope: string, seed?: SeedSpend): Promise<ScopeBalance> {
      for (;;) {
        const balance = await steps.read(scope, seed !== undefined);
        if (balance !== undefined) return balance;
        await steps.seed([{ scope, limitMicros: null, seed }], [0]);
      }
    },

    async close(): Promise<void> {
      clearTimeout(retryTimer);
      retryTimer = undefined;
    },
  };
}
