/**
 * Redis SpendLedger for the scaled mode: every gateway shares the counters, and each
 * change is one Lua script, so concurrent requests never overshoot a limit.
 *
 * Keys (P = prefix, S = scope, R = reservation id):
 *   P:scope:S        hash  spent, reserved (integer micros as strings) and one field
 *                          `hold:R` = amount per live reservation on the scope
 *   P:expiry:S       zset  R scored by the hold's expiry (ms, Redis server time)
 *   P:reservation:R  string  the reservation's scopes as JSON; expires 2 × ttl after
 *                          reserve (one ttl as a hold, one more so a late settle still
 *                          records the spend)
 *
 * Every script first drops the expired holds of each scope it touches (ZRANGEBYSCORE on
 * the expiry zset, subtract each `hold:R` from reserved), so an expired reservation
 * stops counting without any sweeper. `reserve` checks spent + reserved + amount ≤ limit
 * on every scope with a limit, and only if all pass adds the hold to each scope and
 * writes the record. `settle` / `release` read the record's scopes, then run one script
 * that re-checks the record (it names every key it touches, as Redis Cluster requires),
 * frees each scope's hold, adds the actual cost to spent (settle only) and deletes the
 * record, so a second call finds nothing and does nothing.
 *
 * Counters change with HINCRBY on decimal strings (exact 64-bit integers); only the limit
 * check goes through Lua numbers (doubles), exact while spent + reserved + amount stays
 * below 2^53 micros — `validation.ts` keeps each amount and limit below it. Time is the
 * Redis server's TIME, so gateways with skewed clocks agree on expiry. The scripts touch
 * several scopes at once: on Redis Cluster all of them must share a slot (a hash tag
 * such as the team in the prefix); today the ledger targets one Redis primary.
 *
 * Seeding: a scope hash carries `seeded` once its counter was started from the
 * database. `reserve` (and `read`) given scopes with a seed answer which of them are not
 * seeded yet instead of reserving; the ledger then asks each seed and runs SEED, which
 * adds the seeded spend only if nobody seeded the scope meanwhile, and reserves again.
 * So counters that Redis lost (a restart without persistence, an eviction) are rebuilt
 * from the database before anything is admitted on them.
 *
 * Outages: give the ledger a connection with `enableOfflineQueue: false` and a
 * `commandTimeout`, so an unreachable Redis fails each command at once: `reserve` and
 * `read` throw LedgerUnavailableError; `settle` and `release` keep the settlement in
 * memory and apply it when Redis answers again (retried every second, bounded), so the
 * spend of requests served during an outage still reaches the counters.
 * The ledger does not close the connection it is given.
 */
import { type Redis, ReplyError } from 'ioredis';
import { type LuaScript, luaScript, runScript } from '../redis-script.ts';
import { LedgerUnavailableError, type ReserveRequest, type ReserveResult, type ScopeBalance, type SeedSpend, type SpendLedger } from './types.ts';
import { assertValidMicros, validateReserveRequest } from './validation.ts';

export interface RedisLedgerOptions {
  redis: Redis;
  /** Start of every key the ledger writes, e.g. `sg:ledger`. */
  prefix: string;
  /** How often settlements kept during an outage are tried again (default 1 s). */
  retryMs?: number;
}

/** Settlements kept while Redis is unreachable; past this many the oldest are dropped (and logged). */
const MAX_DEFERRED_SETTLEMENTS = 100_000;

const LUA_HELPERS = `
local function nowMs()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

local function freeHold(scopeKey, reservationId)
  local field = 'hold:' .. reservationId
  local amount = redis.call('HGET', scopeKey, field)
  if amount then
    if amount ~= '0' then redis.call('HINCRBY', scopeKey, 'reserved', '-' .. amount) end
    redis.call('HDEL', scopeKey, field)
  end
end

local function dropExpiredHolds(scopeKey, expiryKey, now)
  local upTo = string.format('%d', now)
  local expired = redis.call('ZRANGEBYSCORE', expiryKey, '-inf', upTo)
  for _, reservationId in ipairs(expired) do freeHold(scopeKey, reservationId) end
  if #expired > 0 then redis.call('ZREMRANGEBYSCORE', expiryKey, '-inf', upTo) end
end
`;

/**
 * KEYS: reservation, then (scope, expiry) per scope.
 * ARGV: reservation id, amount, ttl ms, scopes JSON, one limit per scope ('' = none),
 * then one flag per scope ('1' = must be seeded first).
 * Returns {1, spent, reserved per scope…} when admitted (or already held),
 * {0, scope index, spent, reserved} when refused, {2, scope index…} when scopes
 * must be seeded first (nothing reserved).
 */
const RESERVE = luaScript(`${LUA_HELPERS}
local reservationId, amount, ttlMs = ARGV[1], ARGV[2], tonumber(ARGV[3])
local scopeCount = (#KEYS - 1) / 2
local function admitted()
  local reply = {1}
  for i = 1, scopeCount do
    local balance = redis.call('HMGET', KEYS[2 * i], 'spent', 'reserved')
    reply[2 * i] = balance[1] or '0'
    reply[2 * i + 1] = balance[2] or '0'
  end
  return reply
end
local unseeded = {2}
for i = 1, scopeCount do
  if ARGV[4 + scopeCount + i] == '1' and redis.call('HEXISTS', KEYS[2 * i], 'seeded') == 0 then
    unseeded[#unseeded + 1] = i
  end
end
if #unseeded > 1 then return unseeded end
local now = nowMs()
for i = 1, scopeCount do dropExpiredHolds(KEYS[2 * i], KEYS[2 * i + 1], now) end
if redis.call('EXISTS', KEYS[1]) == 1 then return admitted() end
for i = 1, scopeCount do
  local scopeKey = KEYS[2 * i]
  local limit = ARGV[4 + i]
  if limit ~= '' then
    local balance = redis.call('HMGET', scopeKey, 'spent', 'reserved')
    local spent, reserved = balance[1] or '0', balance[2] or '0'
    if tonumber(spent) + tonumber(reserved) + tonumber(amount) > tonumber(limit) then
      return {0, i, spent, reserved}
    end
  end
end
local expiresAt = string.format('%d', now + ttlMs)
for i = 1, scopeCount do
  local scopeKey = KEYS[2 * i]
  redis.call('HINCRBY', scopeKey, 'reserved', amount)
  redis.call('HSET', scopeKey, 'hold:' .. reservationId, amount)
  redis.call('ZADD', KEYS[2 * i + 1], expiresAt, reservationId)
end
redis.call('SET', KEYS[1], ARGV[4], 'PX', string.format('%d', 2 * ttlMs))
return admitted()
`);

/**
 * KEYS: reservation, then (scope, expiry) per scope.
 * ARGV: reservation id, the scopes JSON the caller read, actual cost ('' = release).
 * Returns 1 when finished, 0 when there was nothing to finish, -1 when the record
 * changed since the caller read it (read again).
 */
const FINISH = luaScript(`${LUA_HELPERS}
local stored = redis.call('GET', KEYS[1])
if not stored then return 0 end
if stored ~= ARGV[2] then return -1 end
local reservationId, actual = ARGV[1], ARGV[3]
local now = nowMs()
for i = 1, (#KEYS - 1) / 2 do
  local scopeKey, expiryKey = KEYS[2 * i], KEYS[2 * i + 1]
  dropExpiredHolds(scopeKey, expiryKey, now)
  freeHold(scopeKey, reservationId)
  redis.call('ZREM', expiryKey, reservationId)
  if actual ~= '' then redis.call('HINCRBY', scopeKey, 'spent', actual) end
end
redis.call('DEL', KEYS[1])
return 1
`);

/**
 * KEYS: scope, expiry. ARGV: '1' when the scope must be seeded first.
 * Returns {spent, reserved} after dropping expired holds, or {} when not seeded.
 */
const READ = luaScript(`${LUA_HELPERS}
if ARGV[1] == '1' and redis.call('HEXISTS', KEYS[1], 'seeded') == 0 then return {} end
dropExpiredHolds(KEYS[1], KEYS[2], nowMs())
return redis.call('HMGET', KEYS[1], 'spent', 'reserved')
`);

/** KEYS: scope. ARGV: seeded spend. Adds it unless the scope was seeded meanwhile. */
const SEED = luaScript(`${LUA_HELPERS}
if redis.call('HSETNX', KEYS[1], 'seeded', '1') == 1 then redis.call('HINCRBY', KEYS[1], 'spent', ARGV[1]) end
return 1
`);

const RECORD_CHANGED = -1;
/** Unfinished reservations whose scopes a gateway keeps in memory to settle in one round trip. */
const MAX_RESERVATIONS_REMEMBERED = 100_000;

/** Runs a script; an unreachable Redis (not a script error) becomes LedgerUnavailableError. */
async function runLedgerScript(redis: Redis, script: LuaScript, keys: string[], args: string[]): Promise<unknown> {
  try {
    return await runScript(redis, script, keys, args);
  } catch (error) {
    if (error instanceof ReplyError) throw error;
    throw new LedgerUnavailableError({ cause: error });
  }
}

function toMicros(value: unknown): bigint {
  return typeof value === 'string' ? BigInt(value) : 0n;
}

export function createRedisLedger({ redis, prefix, retryMs = 1_000 }: RedisLedgerOptions): SpendLedger {
  const reservationKey = (reservationId: string) => `${prefix}:reservation:${reservationId}`;
  const scopeKeys = (scope: string) => [`${prefix}:scope:${scope}`, `${prefix}:expiry:${scope}`];
  /** Settlements Redis could not take yet, by reservation id (actual cost, or null to release). */
  const deferred = new Map<string, bigint | null>();
  let retryTimer: NodeJS.Timeout | undefined;

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
   * the record first. A record that changed meanwhile is read again.
   */
  async function finish(reservationId: string, actualMicros: bigint | null): Promise<void> {
    const recordKey = reservationKey(reservationId);
    let scopesJson = reservedHere.get(reservationId);
    reservedHere.delete(reservationId);
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
        [recordKey, ...scopes.flatMap(scopeKeys)],
        [reservationId, scopesJson, actualMicros === null ? '' : actualMicros.toString()],
      );
      if (outcome !== RECORD_CHANGED) return;
      scopesJson = undefined;
    }
  }

  async function retryDeferred(): Promise<void> {
    retryTimer = undefined;
    for (const [reservationId, actualMicros] of deferred) {
      try {
        await finish(reservationId, actualMicros);
        deferred.delete(reservationId);
      } catch (error) {
        if (!(error instanceof LedgerUnavailableError)) throw error;
        break;
      }
    }
    if (deferred.size > 0) retryTimer = setTimeout(() => void retryDeferred(), retryMs).unref();
  }

  /** Finishes now, or keeps the settlement for when Redis is back. */
  async function finishOrDefer(reservationId: string, actualMicros: bigint | null): Promise<void> {
    try {
      await finish(reservationId, actualMicros);
    } catch (error) {
      if (!(error instanceof LedgerUnavailableError)) throw error;
      if (deferred.size >= MAX_DEFERRED_SETTLEMENTS) {
        const oldest = deferred.keys().next().value as string;
        deferred.delete(oldest);
        console.error(`spend ledger: dropped the settlement of ${oldest}: too many kept while Redis is unreachable`);
      }
      deferred.set(reservationId, actualMicros);
      retryTimer ??= setTimeout(() => void retryDeferred(), retryMs).unref();
    }
  }

  return {
    async reserve(request: ReserveRequest): Promise<ReserveResult> {
      const ttlMs = validateReserveRequest(request);
      const { reservationId, scopes } = request;
      const keys = [reservationKey(reservationId), ...scopes.flatMap(({ scope }) => scopeKeys(scope))];
      const scopesJson = JSON.stringify(scopes.map(({ scope }) => scope));
      const args = [
        reservationId,
        request.amountMicros.toString(),
        String(ttlMs),
        scopesJson,
        ...scopes.map(({ limitMicros }) => (limitMicros === null ? '' : limitMicros.toString())),
        ...scopes.map(({ seed }) => (seed === undefined ? '' : '1')),
      ];
      for (;;) {
        const reply = (await runLedgerScript(redis, RESERVE, keys, args)) as [number, ...unknown[]];
        if (reply[0] === 2) {
          await Promise.all(
            (reply.slice(1) as number[]).map((scopeNumber) => {
              const { scope, seed } = scopes[scopeNumber - 1]!;
              return seedScope(scope, seed!);
            }),
          );
          continue;
        }
        if (reply[0] === 1) {
          rememberReservation(reservationId, scopesJson);
          const balances = scopes.map((_, index) => ({ spentMicros: toMicros(reply[2 * index + 1]), reservedMicros: toMicros(reply[2 * index + 2]) }));
          return { ok: true, balances };
        }
        const [, scopeNumber, spent, reserved] = reply as [number, number?, string?, string?];
        const refused = scopes[(scopeNumber ?? 0) - 1];
        if (refused === undefined || refused.limitMicros === null) {
          throw new Error(`unexpected reserve reply from Redis: ${JSON.stringify(reply)}`);
        }
        return {
          ok: false,
          scope: refused.scope,
          limitMicros: refused.limitMicros,
          spentMicros: toMicros(spent),
          reservedMicros: toMicros(reserved),
        };
      }
    },

    async settle(reservationId: string, actualMicros: bigint): Promise<void> {
      assertValidMicros('actualMicros', actualMicros);
      await finishOrDefer(reservationId, actualMicros);
    },

    async release(reservationId: string): Promise<void> {
      await finishOrDefer(reservationId, null);
    },

    async read(scope: string, seed?: SeedSpend): Promise<ScopeBalance> {
      for (;;) {
        const reply = (await runLedgerScript(redis, READ, scopeKeys(scope), [seed === undefined ? '' : '1'])) as unknown[];
        if (reply.length === 0) {
          await seedScope(scope, seed!);
          continue;
        }
        const [spent, reserved] = reply;
        return { spentMicros: toMicros(spent), reservedMicros: toMicros(reserved) };
      }
    },

    async close(): Promise<void> {
      clearTimeout(retryTimer);
      retryTimer = undefined;
    },
  };
}
