/**
 * Property test of every SpendLedger against `ReferenceLedger`, the ledger's rules in
 * their plainest form (Maps, every balance recomputed from the live reservations).
 *
 * fast-check generates sequences of reserve (scopes from a small set, random limits and
 * amounts, so many are refused), settle (random actual costs, also of unknown and
 * finished reservations), release and read — and, on the in-process ledger's fake
 * clock, time passing so holds expire and records are forgotten. After every ledger
 * call the ledger must answer as the reference does (the same admission, or the same
 * refusal: first refusing scope, its limit, spent and reserved) and show the same
 * balance on every scope; and a limited scope to which only admissions have added must
 * hold no more than its limit. The Redis ledger runs on each Redis target set
 * (TEST_REDIS_URL, TEST_REDIS_CLUSTER_URL), with and without leases, with fewer runs and no expiry: it keeps Redis server time, and
 * nothing expires within the default ttl of its reservations.
 *
 * Leases are also tested as two gateways sharing budgets: two leased ledgers on one key
 * prefix (each its own connection) get batches of calls run side by side. Whatever they
 * admit, each limited scope's admitted amounts plus settled spend stay within its limit
 * (every cost here is at most its reservation), and once both are closed Redis counts
 * exactly the spend settled and the amounts still reserved.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { RedisConnection } from '../redis-connection.ts';
import { connectTestRedis, deleteKeysWithPrefix, redisTargets, uniquePrefix } from '../testing/redis.ts';
import { createInProcessLedger } from './in-process-ledger.ts';
import { createRedisLedger } from './redis-ledger.ts';
import type { ReserveRequest, ReserveResult, ScopeBalance, SpendLedger } from './types.ts';
import { DEFAULT_RESERVATION_TTL_MS, MAX_MICROS } from './validation.ts';

const START_MS = Date.UTC(2026, 10, 1);
/** One team's budgets, as budgetLedgerScope names them: its hash tag puts them in one Redis Cluster slot. */
const SCOPES = ['budget:{team-1}:key-1:total', 'budget:{team-1}:group-1:2026-11-01', 'budget:{team-1}:team-1:2026-11-01'] as const;
/** Few ids, so reservations are re-reserved, settled twice, settled after release… */
const RESERVATION_IDS = ['r1', 'r2', 'r3', 'r4', 'r5'] as const;

type LedgerCommand =
  | { kind: 'reserve'; request: ReserveRequest }
  | { kind: 'settle'; reservationId: string; actualMicros: bigint }
  | { kind: 'release'; reservationId: string }
  | { kind: 'read'; scope: string }
  | { kind: 'elapse'; ms: number };

interface ReferenceReservation {
  scopes: string[];
  amountMicros: bigint;
  expiresAt: number;
  forgetAt: number;
}

/**
 * The contract of `types.ts` with nothing clever: a hold counts while now < expiresAt;
 * the record (for idempotent reserve and a late settle) is kept while
 * now ≤ reserve time + 2 × ttl.
 */
class ReferenceLedger {
  now = START_MS;
  readonly #spent = new Map<string, bigint>();
  readonly #reservations = new Map<string, ReferenceReservation>();
  /**
   * The limit each scope's spent + reserved must stay within: set by the last admission
   * on the scope, dropped when an unlimited reservation is admitted on it or a settle
   * adds more than the hold it frees (a cost above the reservation, a late settle).
   */
  readonly ceilings = new Map<string, bigint>();

  read(scope: string): ScopeBalance {
    let reservedMicros = 0n;
    for (const reservation of this.#reservations.values()) {
      if (reservation.scopes.includes(scope)) reservedMicros += this.#heldBy(reservation);
    }
    return { spentMicros: this.#spent.get(scope) ?? 0n, reservedMicros };
  }

  reserve({ reservationId, scopes, amountMicros, ttlMs = DEFAULT_RESERVATION_TTL_MS }: ReserveRequest): ReserveResult {
    const balances = () => scopes.map(({ scope }) => this.read(scope));
    if (this.#remembered(reservationId)) return { ok: true, balances: balances() };
    for (const { scope, limitMicros } of scopes) {
      const { spentMicros, reservedMicros } = this.read(scope);
      if (limitMicros !== null && spentMicros + reservedMicros + amountMicros > limitMicros) {
        return { ok: false, scope, limitMicros, spentMicros, reservedMicros };
      }
    }
    this.#reservations.set(reservationId, {
      scopes: scopes.map(({ scope }) => scope),
      amountMicros,
      expiresAt: this.now + ttlMs,
      forgetAt: this.now + 2 * ttlMs,
    });
    for (const { scope, limitMicros } of scopes) {
      if (limitMicros === null) this.ceilings.delete(scope);
      else this.ceilings.set(scope, limitMicros);
    }
    return { ok: true, balances: balances() };
  }

  settle(reservationId: string, actualMicros: bigint): void {
    const reservation = this.#remembered(reservationId);
    if (reservation === undefined) return;
    this.#reservations.delete(reservationId);
    for (const scope of reservation.scopes) {
      this.#spent.set(scope, (this.#spent.get(scope) ?? 0n) + actualMicros);
      if (actualMicros > this.#heldBy(reservation)) this.ceilings.delete(scope);
    }
  }

  release(reservationId: string): void {
    if (this.#remembered(reservationId)) this.#reservations.delete(reservationId);
  }

  #remembered(reservationId: string): ReferenceReservation | undefined {
    const reservation = this.#reservations.get(reservationId);
    return reservation !== undefined && this.now <= reservation.forgetAt ? reservation : undefined;
  }

  #heldBy(reservation: ReferenceReservation): bigint {
    return this.now < reservation.expiresAt ? reservation.amountMicros : 0n;
  }
}

interface LedgerUnderTest {
  ledger: SpendLedger;
  /** Moves the ledger's clock on; absent when the ledger keeps real time. */
  elapse?: (ms: number) => void;
}

interface LedgerImplementation {
  name: string;
  /** Runs on a fake clock the test moves, so the commands include time passing. */
  fakeClock: boolean;
  numRuns: number;
  maxCommands: number;
  create(): LedgerUnderTest;
}

const redisConnections = redisTargets.map((target) => ({ ...target, redis: connectTestRedis(target.url) }));
const redisPrefix = uniquePrefix('ledger-property');
let redisLedgerCount = 0;

const IMPLEMENTATIONS: LedgerImplementation[] = [
  {
    name: 'in-process ledger',
    fakeClock: true,
    numRuns: 1_000,
    maxCommands: 60,
    create() {
      let now = START_MS;
      return {
        ledger: createInProcessLedger(() => now),
        elapse: (ms) => {
          now += ms;
        },
      };
    },
  },
];
for (const { name, redis } of redisConnections) {
  IMPLEMENTATIONS.push(
    {
      name: `${name} ledger without leases`,
      fakeClock: false,
      numRuns: 150,
      maxCommands: 40,
      create() {
        redisLedgerCount += 1;
        return { ledger: createRedisLedger({ redis, prefix: `${redisPrefix}:${redisLedgerCount}`, leases: false }) };
      },
    },
    {
      name: `${name} ledger with leases`,
      fakeClock: false,
      numRuns: 150,
      maxCommands: 40,
      create() {
        redisLedgerCount += 1;
        return { ledger: createRedisLedger({ redis, prefix: `${redisPrefix}:${redisLedgerCount}` }) };
      },
    },
  );
}

afterAll(async () => {
  for (const { redis } of redisConnections) {
    await deleteKeysWithPrefix(redis, redisPrefix);
    await redis.quit();
  }
});

const reservationId = fc.constantFrom(...RESERVATION_IDS);
/**
 * A run counts in units of 1 micro, or of 2^44 + 1 micros (capped at MAX_MICROS): then
 * a few amounts on one scope add up past 2^53, where Lua numbers (doubles), which the
 * Redis ledger compares limits with, stop being exact.
 */
const HUGE_UNIT = 2n ** 44n + 1n;

/** Commands for one ledger; with `expires`, short ttls and time passing in steps of 50 ms. */
function ledgerCommands(expires: boolean, maxCommands: number): fc.Arbitrary<LedgerCommand[]> {
  return fc.constantFrom(1n, HUGE_UNIT).chain((unit) => {
    /** Mostly multiples of 50 units, so a reservation often fills a limit exactly. */
    const amount = (maxUnits: number) =>
      fc
        .oneof(
          { arbitrary: fc.integer({ min: 0, max: maxUnits / 50 }).map((steps) => BigInt(steps * 50)), weight: 3 },
          fc.bigInt({ min: 0n, max: BigInt(maxUnits) }),
        )
        .map((units) => (units * unit < MAX_MICROS ? units * unit : MAX_MICROS));
    const scopeLimits = fc.uniqueArray(
      fc.record({
        scope: fc.constantFrom(...SCOPES),
        limitMicros: fc.option(amount(1_500), { nil: null, freq: 4 }),
      }),
      { minLength: 1, maxLength: SCOPES.length, selector: ({ scope }) => scope },
    );
    const ttl = expires ? fc.constantFrom(100, 200, 300) : fc.constant(undefined);
    const reserve = fc
      .record({ reservationId, scopes: scopeLimits, amountMicros: amount(500), ttlMs: ttl })
      .map(({ ttlMs, ...request }): LedgerCommand => ({ kind: 'reserve', request: ttlMs === undefined ? request : { ...request, ttlMs } }));
    const settle = fc
      .record({ reservationId: fc.constantFrom(...RESERVATION_IDS, 'never-reserved'), actualMicros: amount(600) })
      .map((fields): LedgerCommand => ({ kind: 'settle', ...fields }));
    const release = reservationId.map((id): LedgerCommand => ({ kind: 'release', reservationId: id }));
    const read = fc.constantFrom(...SCOPES).map((scope): LedgerCommand => ({ kind: 'read', scope }));
    const elapse = fc.integer({ min: 1, max: 8 }).map((steps): LedgerCommand => ({ kind: 'elapse', ms: steps * 50 }));
    const command = expires
      ? fc.oneof({ arbitrary: reserve, weight: 4 }, { arbitrary: settle, weight: 2 }, release, read, elapse)
      : fc.oneof({ arbitrary: reserve, weight: 4 }, { arbitrary: settle, weight: 2 }, release, read);
    return fc.array(command, { maxLength: maxCommands });
  });
}

async function expectSameBalances(ledger: SpendLedger, reference: ReferenceLedger): Promise<void> {
  for (const scope of SCOPES) {
    const balance = await ledger.read(scope);
    expect(balance, `balance of ${scope}`).toEqual(reference.read(scope));
    const ceiling = reference.ceilings.get(scope);
    if (ceiling !== undefined) {
      expect(balance.spentMicros + balance.reservedMicros, `spent + reserved on ${scope}`).toBeLessThanOrEqual(ceiling);
    }
  }
}

async function runCommands({ ledger, elapse }: LedgerUnderTest, commands: LedgerCommand[]): Promise<void> {
  const reference = new ReferenceLedger();
  for (const command of commands) {
    switch (command.kind) {
      case 'reserve':
        expect(await ledger.reserve(command.request)).toEqual(reference.reserve(command.request));
        break;
      case 'settle':
        await ledger.settle(command.reservationId, command.actualMicros);
        reference.settle(command.reservationId, command.actualMicros);
        break;
      case 'release':
        await ledger.release(command.reservationId);
        reference.release(command.reservationId);
        break;
      case 'read':
        expect(await ledger.read(command.scope)).toEqual(reference.read(command.scope));
        break;
      case 'elapse':
        if (elapse === undefined) throw new Error('this ledger keeps real time');
        elapse(command.ms);
        reference.now += command.ms;
        // Time alone calls no ledger method: the next call sees the expired holds unswept.
        continue;
    }
    await expectSameBalances(ledger, reference);
  }
}

for (const implementation of IMPLEMENTATIONS) {
  describe(`${implementation.name} against the reference model`, () => {
    it('answers every random sequence of calls as the reference does', async () => {
      await fc.assert(
        fc.asyncProperty(ledgerCommands(implementation.fakeClock, implementation.maxCommands), async (commands) => {
          const subject = implementation.create();
          try {
            await runCommands(subject, commands);
          } finally {
            await subject.ledger.close();
          }
        }),
        { numRuns: implementation.numRuns },
      );
    });
  });
}

type GatewayCall =
  | { kind: 'reserve'; gateway: 0 | 1; scopes: string[]; amountMicros: bigint }
  /** Ends the `pick`-th reservation still held (if any): settled at `costShare` % of its amount, or released. */
  | { kind: 'settle'; pick: number; costShare: number }
  | { kind: 'release'; pick: number };

/** Per run: a limit (or none) for each scope, and batches of calls run side by side. */
const twoGatewayRuns = fc.record({
  limits: fc.tuple(...SCOPES.map(() => fc.option(fc.integer({ min: 0, max: 3_000 }).map(BigInt), { nil: null, freq: 4 }))),
  leaseOptions: fc.constantFrom({}, { flushMs: 5, maxAgeMs: 15 }),
  batches: fc.array(
    fc.array(
      fc.oneof(
        { arbitrary: fc.record({ kind: fc.constant('reserve' as const), gateway: fc.constantFrom(0 as const, 1 as const), scopes: fc.subarray([...SCOPES], { minLength: 1 }), amountMicros: fc.integer({ min: 0, max: 400 }).map(BigInt) }), weight: 4 },
        { arbitrary: fc.record({ kind: fc.constant('settle' as const), pick: fc.nat(), costShare: fc.integer({ min: 0, max: 100 }) }), weight: 2 },
        fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
      ),
      { minLength: 1, maxLength: 6 },
    ),
    { maxLength: 30, size: 'medium' },
  ),
});

for (const { name, url } of redisTargets) {
  describe(`two leased ${name} ledgers sharing budgets`, () => {
    const connections: RedisConnection[] = [];
    afterAll(() => Promise.all(connections.map((connection) => connection.quit())));

    it('keep every limit between them and count exactly what was settled and is still held', async () => {
      await fc.assert(
        fc.asyncProperty(twoGatewayRuns, async ({ limits, leaseOptions, batches }) => {
          redisLedgerCount += 1;
          const prefix = `${redisPrefix}:${redisLedgerCount}`;
          while (connections.length < 2) connections.push(connectTestRedis(url));
          const gateways = connections.map((connection) => createRedisLedger({ redis: connection, prefix, leases: leaseOptions }));
          const limitOf = new Map<string, bigint | null>(SCOPES.map((scope, index) => [scope, limits[index] ?? null]));
          const held = new Map<string, { gateway: number; scopes: string[]; amountMicros: bigint }>();
          const spent = new Map<string, bigint>(SCOPES.map((scope) => [scope, 0n]));
          let nextId = 0;

          const run = async (call: GatewayCall) => {
            if (call.kind === 'reserve') {
              nextId += 1;
              const reservationId = `g${nextId}`;
              const scopes = call.scopes.map((scope) => ({ scope, limitMicros: limitOf.get(scope) ?? null }));
              const result = await gateways[call.gateway]!.reserve({ reservationId, scopes, amountMicros: call.amountMicros });
              if (result.ok) held.set(reservationId, { gateway: call.gateway, scopes: call.scopes, amountMicros: call.amountMicros });
              return;
            }
            const ids = [...held.keys()];
            if (ids.length === 0) return;
            const reservationId = ids[call.pick % ids.length]!;
            const reservation = held.get(reservationId)!;
            held.delete(reservationId);
            if (call.kind === 'release') return gateways[reservation.gateway]!.release(reservationId);
            const actualMicros = (reservation.amountMicros * BigInt(call.costShare)) / 100n;
            for (const scope of reservation.scopes) spent.set(scope, spent.get(scope)! + actualMicros);
            return gateways[reservation.gateway]!.settle(reservationId, actualMicros);
          };
          const reservedOn = (scope: string) =>
            [...held.values()].filter((reservation) => reservation.scopes.includes(scope)).reduce((sum, { amountMicros }) => sum + amountMicros, 0n);

          try {
            for (const batch of batches) {
              await Promise.all(batch.map(run));
              for (const scope of SCOPES) {
                const limit = limitOf.get(scope);
                if (limit != null) expect(spent.get(scope)! + reservedOn(scope), `admitted and spent on ${scope}`).toBeLessThanOrEqual(limit);
              }
            }
          } finally {
            await Promise.all(gateways.map((gateway) => gateway.close()));
          }
          const counted = createRedisLedger({ redis: connections[0]!, prefix, leases: false });
          for (const scope of SCOPES) {
            expect(await counted.read(scope), `counters of ${scope}`).toEqual({ spentMicros: spent.get(scope), reservedMicros: reservedOn(scope) });
          }
        }),
        { numRuns: 60 },
      );
    });
  });
}
