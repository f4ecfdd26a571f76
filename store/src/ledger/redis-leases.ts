/**
 * Budget leases: how the Redis ledger admits most requests without a Redis round trip.
 *
 * A gateway process takes a LEASE, a slice of the budget, as one reservation in Redis
 * (`lease:<uuid>`, held on every scope of one scope list), and admits the later requests
 * on that same list (same scopes, limits, seeds and ttl) in memory: a request fits when
 * the lease's unsettled amounts, plus the spend its settled requests reported, plus the
 * request's amount stay within what the lease holds.
 * Settling and releasing a leased request are in memory too.
 *
 * - Size: up to max(64 × the amount, twice what the previous lease of the list admitted),
 *   but at most 1/4 of the smallest headroom (limit − spent − reserved) of the limited
 *   scopes, so that several gateways share a budget near its cap. When that is below the
 *   request's amount, the lease is exactly the amount: a plain per-request reservation.
 *   Seeding works as for any reservation (the lease is taken by RESERVE).
 * - Life: a lease admits for at most 1 s (half its hold if that is shorter). It stops
 *   (retires) sooner when a request does not fit, when its spare would not fit another
 *   request of the same amount, when this process takes a lease under another limit of
 *   one of its scopes, or when the connection fails. Every 250 ms, and at once when it
 *   retires, one UPDATE_LEASE moves the spend its requests settled from its hold into
 *   spent and gives back the hold it no longer needs; once its last request is settled
 *   or released, a last update finishes it. Redis sees a handful of scripts per scope
 *   list and second instead of two per request.
 * - Hold: Redis drops a lease's hold 10 s (holdMs, at most the ttl) after its RESERVE
 *   unless an update renews it: every update but the last renews it for holdMs more, up
 *   to one ttl after the lease was taken (so no request is held past its ttl). Until the
 *   lease is finished, this process sends an update (a heartbeat) whenever its hold would
 *   otherwise come within half of holdMs of expiring before the next 250 ms tick. Each
 *   update also keeps the lease's record 2 × ttl longer, so a late settle still records
 *   its spend.
 *
 * Bounds they keep:
 * - Admission: a lease admits only within a hold Redis granted against the limits, so
 *   the total admitted never exceeds a limit; only a request costing more than it
 *   reserved goes past, as without leases (this process then stops its leases on those
 *   scopes, so the next request asks Redis).
 * - Spend reaches Redis's spent within 250 ms (other gateways, and the budget spend the
 *   API shows, lag by that much). Reads and balances in this process add what it has not
 *   sent yet, so they are exact here. A gateway killed outright loses at most 250 ms of
 *   counter updates (its usage events still reach PostgreSQL through the meter), and its
 *   leases' holds expire within holdMs (10 s).
 * - A budget changed through the API (say, a lower limit) is a new scope list, hence a
 *   new lease at once; the old lease admits nothing after its 1 s.
 * - Redis unreachable: leases admit nothing once the connection is not ready or a
 *   command failed (a hung Redis is noticed by the next command's timeout); reserve then
 *   asks Redis and throws LedgerUnavailableError. Spend not yet in Redis stays in memory
 *   and is sent again every 250 ms (updates carry totals, so sending twice is harmless).
 *   Cut off for longer than holdMs, a lease loses its hold (an update does not bring back
 *   a hold that expired): its in-flight requests then count only when they settle.
 *
 * Trade-offs: a lease's spare counts as reserved for everyone else, and a dead gateway's
 * leases stay held for up to holdMs (10 s; without leases its in-flight requests'
 * reservations would stay for their ttl, 5 minutes by default); in exchange a live
 * gateway sends one update per lease every ~5 s while long requests run on it. When
 * Redis refuses a request, this process gives its own spare on those scopes back and
 * asks once more, so one gateway admits exactly as without leases; another gateway's
 * spare (at most a quarter of the headroom, for at most 1 s) may still refuse a request
 * that would fit. The balances of a leased admission (`x-spendgate-budget-remaining`)
 * are Redis's at the lease's last update plus this process's changes since. A leased
 * reservation is known only to the process that made it: settling it from another
 * process does nothing.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.ts';
import type { RedisLedgerSteps } from './redis-ledger.ts';
import { LedgerUnavailableError, type ReserveRequest, type ReserveResult, type ScopeBalance, type ScopeLimit, type SeedSpend, type SpendLedger } from './types.ts';
import { assertValidMicros, MAX_MICROS, validateReserveRequest } from './validation.ts';

export interface LeaseOptions {
  /**
   * How long a lease's hold stays in Redis without an update from this process (default
   * 10 s; never more than the ttl). Updates renew it, so keep it well above flushMs.
   */
  holdMs?: number;
  /** How long a lease admits requests (default 1 s; never more than half its hold). */
  maxAgeMs?: number;
  /** How often the spend of leased requests is sent to Redis (default 250 ms). */
  flushMs?: number;
  /** A lease is sized for at least this many requests like the one that takes it (default 64). */
  requestsPerLease?: number;
  /** A lease takes at most 1 / headroomShare of the headroom left (default 4). */
  headroomShare?: number;
}

interface Lease {
  /** Its reservation id in Redis. */
  id: string;
  slot: Slot;
  scopes: readonly string[];
  /** Each scope's limit (null = none), as in the requests it admits. */
  limits: readonly (bigint | null)[];
  heldMicros: bigint;
  /** What it admitted in all (sizes the next lease of its slot). */
  admittedMicros: bigint;
  /** Amounts of its requests not settled or released yet. */
  inFlightMicros: bigint;
  /** What its settled requests cost. */
  settledMicros: bigint;
  /** Its requests not settled or released yet: amount by reservation id. */
  requests: Map<string, bigint>;
  /** Admits nothing more; finished once its requests are. */
  retired: boolean;
  retireAt: number;
  /** The ttl of the requests it admits. */
  ttlMs: number;
  /** When Redis drops its hold at the soonest, unless an update renews it: reckoned from when the update Redis last answered was sent. */
  expiresAt: number;
  /** One ttl after it was taken: no update renews its hold past this. */
  expiresBy: number;
  /** When Redis drops its record at the soonest: 2 × ttl after it was taken, or after the update Redis last answered was sent. */
  forgetAt: number;
  /** What Redis was last sent: the spend moved into spent, and the hold it keeps. */
  sentSpentMicros: bigint;
  sentHoldMicros: bigint;
  finishing: boolean;
  /** The number (among all updates this process sent) of the update that gave its spare back. */
  spareGivenBackBy: number;
  /** An update failed: its state is sent again. */
  unsent: boolean;
  /** Each scope's balance at the last Redis answer, with this process's changes to it then. */
  views: { balance: ScopeBalance; changes: ScopeBalance }[];
}

/** The requests on one scope list: they share the current lease. */
interface Slot {
  lease: Lease | undefined;
  /**
   * The lease being taken (or refused), which other requests on the list wait for: one
   * RESERVE in flight per list, so that near a limit, where each lease holds a single
   * request, requests still reach Redis one after another. (Many in flight at once would
   * all fail together if the event loop stalled past the command timeout.)
   */
  granting: Promise<unknown> | undefined;
  /** What the previous lease admitted. */
  lastAdmittedMicros: bigint;
  /** When a request last came (idle slots are forgotten). */
  usedAt: number;
}

/** A request Redis refused is asked again (at most this often) when this process's leases gave hold back meanwhile. */
const MAX_RETRIES_AFTER_GIVING_BACK = 3;
/** A slot unused this long forgets how much its leases admitted. */
const SLOT_IDLE_MS = 60_000;

const add = (a: ScopeBalance, b: ScopeBalance): ScopeBalance => ({
  spentMicros: a.spentMicros + b.spentMicros,
  reservedMicros: a.reservedMicros + b.reservedMicros,
});
const subtract = (a: ScopeBalance, b: ScopeBalance): ScopeBalance => ({
  spentMicros: a.spentMicros - b.spentMicros,
  reservedMicros: a.reservedMicros - b.reservedMicros,
});
const min = (a: bigint, b: bigint) => (a < b ? a : b);
const max = (a: bigint, b: bigint) => (a > b ? a : b);
const used = (lease: Lease) => lease.inFlightMicros + lease.settledMicros;
/** Whether two leases count on a scope under different limits. */
const limitsDiffer = (a: Lease, b: Lease) =>
  a.scopes.some((scope, index) => {
    const other = b.scopes.indexOf(scope);
    return other >= 0 && a.limits[index] !== b.limits[other];
  });

/** Leases on top of the Redis ledger's steps; `plain` settles reservations this process did not lease. */
export function createLeasedLedger(steps: RedisLedgerSteps, plain: SpendLedger, options: LeaseOptions, log: Logger): SpendLedger {
  const { redis } = steps;
  const holdMs = options.holdMs ?? 10_000;
  const maxAgeMs = options.maxAgeMs ?? 1_000;
  const flushMs = options.flushMs ?? 250;
  const requestsPerLease = BigInt(options.requestsPerLease ?? 64);
  const headroomShare = options.headroomShare ?? 4;

  const slots = new Map<string, Slot>();
  const leases = new Set<Lease>();
  const leaseOf = new Map<string, Lease>();
  /** This process's admissions, settlements and releases on each scope, summed: what moved since a view. */
  const changes = new Map<string, ScopeBalance>();
  /** Leases being taken: `changes` is kept whole meanwhile. */
  let grantsUnderWay = 0;
  /** Updates sent so far. */
  let updatesSent = 0;
  /** A command failed and none has succeeded since. */
  let failing = false;
  const updates = new Set<Promise<void>>();
  let ticker: NodeJS.Timeout | undefined;

  const retireAll = () => {
    for (const lease of leases) retire(lease);
  };
  redis.on('close', retireAll);

  function changesOf(scope: string): ScopeBalance {
    let sum = changes.get(scope);
    if (sum === undefined) {
      sum = { spentMicros: 0n, reservedMicros: 0n };
      changes.set(scope, sum);
    }
    return sum;
  }

  function change(lease: Lease, spentMicros: bigint, reservedMicros: bigint): void {
    for (const scope of lease.scopes) {
      const sum = changesOf(scope);
      sum.spentMicros += spentMicros;
      sum.reservedMicros += reservedMicros;
    }
  }

  /** What this process's leases changed on a scope that Redis has not been sent. */
  function unsent(scope: string, now: number): ScopeBalance {
    let spentMicros = 0n;
    let reservedMicros = 0n;
    for (const lease of leases) {
      if (!lease.scopes.includes(scope)) continue;
      spentMicros += lease.settledMicros - lease.sentSpentMicros;
      if (now < lease.expiresAt) reservedMicros += lease.inFlightMicros - lease.sentHoldMicros;
    }
    return { spentMicros, reservedMicros };
  }

  /**
   * Taken just before a command is sent: with its answer, each scope's true balance then
   * (Redis's plus what was unsent), and the changes so far, to add the later ones to.
   */
  function snapshot(scopes: readonly string[]) {
    const now = Date.now();
    const corrections = scopes.map((scope) => unsent(scope, now));
    const changesThen = scopes.map((scope) => ({ ...changesOf(scope) }));
    return {
      corrections,
      views: (balances: ScopeBalance[]) => balances.map((balance, index) => ({ balance: add(balance, corrections[index]!), changes: changesThen[index]! })),
    };
  }

  function balancesOf(lease: Lease): ScopeBalance[] {
    return lease.views.map(({ balance, changes: then }, index) => add(balance, subtract(changesOf(lease.scopes[index]!), then)));
  }

  /** Marks the connection failing or working by how a command ended. */
  async function run<T>(command: Promise<T>): Promise<T> {
    try {
      const answer = await command;
      failing = false;
      return answer;
    } catch (error) {
      if (error instanceof LedgerUnavailableError) failing = true;
      throw error;
    }
  }

  function drop(lease: Lease): void {
    leases.delete(lease);
    if (lease.slot.lease === lease) lease.slot.lease = undefined;
    for (const reservationId of lease.requests.keys()) leaseOf.delete(reservationId);
  }

  /**
   * Sends the lease's settled spend and the hold it still needs (all of it when it is
   * finished), if Redis does not have them yet, or when its hold needs renewing: before
   * the next tick it would come within half of holdMs of expiring. Every update but the
   * last renews the hold, up to one ttl after the lease was taken, and the records.
   * Answers whether it sent anything.
   */
  function update(lease: Lease): boolean {
    if (lease.finishing && !lease.unsent) return false;
    const sentAt = Date.now();
    const finish = lease.retired && lease.requests.size === 0;
    const needed = lease.retired ? lease.inFlightMicros : max(lease.inFlightMicros, lease.heldMicros - lease.settledMicros);
    const holdMicros = finish ? 0n : min(needed, lease.sentHoldMicros);
    const current = lease.settledMicros === lease.sentSpentMicros && holdMicros === lease.sentHoldMicros;
    const renew = sentAt < lease.expiresAt && lease.expiresAt < lease.expiresBy && lease.expiresAt - sentAt < holdMs / 2 + flushMs;
    if (!finish && !lease.unsent && current && !renew) return false;
    lease.sentSpentMicros = lease.settledMicros;
    lease.sentHoldMicros = holdMicros;
    lease.unsent = false;
    lease.finishing = finish;
    updatesSent += 1;
    const holdFor = Math.max(0, Math.min(holdMs, lease.expiresBy - sentAt));
    const recordMs = 2 * lease.ttlMs;
    const { views } = snapshot(lease.scopes);
    const sent = run(steps.updateLease(lease.id, lease.scopes, lease.settledMicros, holdMicros, finish, holdFor, recordMs)).then(
      (answer) => {
        if (answer === undefined || finish) return drop(lease);
        lease.views = views(answer.balances);
        // Redis renewed the hold when it ran the update, no sooner than it was sent; a hold already gone stays gone.
        lease.expiresAt = answer.holding ? Math.max(lease.expiresAt, sentAt + holdFor) : Math.min(lease.expiresAt, sentAt);
        lease.forgetAt = Math.max(lease.forgetAt, sentAt + recordMs);
      },
      (error: unknown) => {
        if (!(error instanceof LedgerUnavailableError)) log.error({ err: error }, 'spend ledger: a lease update failed');
        lease.unsent = true;
        startTicker();
      },
    );
    updates.add(sent);
    void sent.finally(() => updates.delete(sent));
    return true;
  }

  /** Stops the lease admitting and gives back its spare; answers whether an update was sent. */
  function retire(lease: Lease): boolean {
    if (lease.retired) return false;
    lease.retired = true;
    const { slot } = lease;
    if (slot.lease === lease) {
      slot.lease = undefined;
      slot.lastAdmittedMicros = lease.admittedMicros;
    }
    const spare = used(lease) < lease.heldMicros;
    if (!update(lease)) return false;
    if (spare) lease.spareGivenBackBy = updatesSent;
    return true;
  }

  /**
   * Makes Redis count exactly what this process's leases on these scopes use, for a
   * request Redis refused. Answers whether that may change the answer: something was
   * sent now, or a lease gave its spare back after update number `since` (the request
   * was sent before that update).
   */
  function giveBackSpare(scopes: readonly string[], since: number): boolean {
    let changed = false;
    for (const lease of leases) {
      if (!lease.scopes.some((scope) => scopes.includes(scope))) continue;
      if (lease.retired ? update(lease) : retire(lease)) changed = true;
      if (lease.spareGivenBackBy > since) changed = true;
    }
    return changed;
  }

  function admitLocally(lease: Lease, reservationId: string, amountMicros: bigint): ReserveResult {
    lease.requests.set(reservationId, amountMicros);
    leaseOf.set(reservationId, lease);
    lease.inFlightMicros += amountMicros;
    lease.admittedMicros += amountMicros;
    change(lease, 0n, amountMicros);
    const balances = balancesOf(lease);
    if (lease.heldMicros - used(lease) < amountMicros) retire(lease);
    return { ok: true, balances };
  }

  function canAdmit(lease: Lease, amountMicros: bigint): boolean {
    return (
      !lease.retired && !failing && redis.status === 'ready' && Date.now() < lease.retireAt && used(lease) + amountMicros <= lease.heldMicros
    );
  }

  /** Takes a lease on the request's scope list and admits the request on it, or answers Redis's refusal. */
  async function takeLease(slot: Slot, request: ReserveRequest, ttlMs: number): Promise<ReserveResult> {
    const { reservationId, scopes, amountMicros } = request;
    const names = scopes.map(({ scope }) => scope);
    const wantedMicros = min(MAX_MICROS, max(requestsPerLease * amountMicros, 2n * slot.lastAdmittedMicros));
    const id = `lease:${randomUUID()}`;
    const holdFor = Math.min(holdMs, ttlMs);
    let retries = 0;
    grantsUnderWay += 1;
    try {
      for (;;) {
        const sentAt = Date.now();
        const updatesBefore = updatesSent;
        const { corrections, views } = snapshot(names);
        const reply = await run(steps.reserve(id, scopes, amountMicros, ttlMs, { wantedMicros, headroomShare, holdMs: holdFor }));
        if (reply.outcome === 'unseeded') {
          await steps.seed(scopes, reply.scopeIndexes);
          continue;
        }
        if (reply.outcome === 'refused') {
          const limited = scopes.filter(({ limitMicros }) => limitMicros !== null).map(({ scope }) => scope);
          if (retries < MAX_RETRIES_AFTER_GIVING_BACK && giveBackSpare(limited, updatesBefore)) {
            retries += 1;
            continue;
          }
          const { scope, limitMicros } = scopes[reply.scopeIndex]!;
          return { ok: false, scope, limitMicros: limitMicros!, ...add(reply.balance, corrections[reply.scopeIndex]!) };
        }
        const heldMicros = reply.heldMicros;
        const lease: Lease = {
          id,
          slot,
          scopes: names,
          limits: scopes.map(({ limitMicros }) => limitMicros),
          heldMicros,
          admittedMicros: 0n,
          inFlightMicros: 0n,
          settledMicros: 0n,
          requests: new Map(),
          retired: false,
          // It admits only while its hold is sure to last, even if no update renews it.
          retireAt: sentAt + Math.min(maxAgeMs, holdFor / 2),
          ttlMs,
          expiresAt: sentAt + holdFor,
          expiresBy: sentAt + ttlMs,
          forgetAt: sentAt + 2 * ttlMs,
          sentSpentMicros: 0n,
          sentHoldMicros: heldMicros,
          finishing: false,
          spareGivenBackBy: 0,
          unsent: false,
          // Redis's balances count the new hold; this process counts the lease by what it admits.
          views: views(reply.balances.map((balance) => ({ ...balance, reservedMicros: balance.reservedMicros - heldMicros }))),
        };
        // A lease under another limit of one of these scopes (an older limit of its budget) admits no more.
        for (const other of leases) if (limitsDiffer(other, lease)) retire(other);
        if (slot.lease !== undefined) retire(slot.lease);
        slot.lease = lease;
        leases.add(lease);
        startTicker();
        return admitLocally(lease, reservationId, amountMicros);
      }
    } finally {
      grantsUnderWay -= 1;
    }
  }

  function slotFor(request: ReserveRequest, ttlMs: number): Slot {
    const key = JSON.stringify([ttlMs, ...request.scopes.map(({ scope, limitMicros, seed }) => [scope, limitMicros?.toString() ?? null, seed !== undefined])]);
    let slot = slots.get(key);
    if (slot === undefined) {
      slot = { lease: undefined, granting: undefined, lastAdmittedMicros: 0n, usedAt: 0 };
      slots.set(key, slot);
    }
    slot.usedAt = Date.now();
    return slot;
  }

  /** Every `flushMs` while there are leases: retire old ones, send what Redis lacks, renew holds, forget what expired. */
  function tick(): void {
    const now = Date.now();
    for (const lease of leases) {
      if (now >= lease.forgetAt) drop(lease);
      else if (!lease.retired && now >= lease.retireAt) retire(lease);
      else update(lease);
    }
    if (grantsUnderWay === 0) {
      for (const scope of changes.keys()) {
        if (![...leases].some((lease) => lease.scopes.includes(scope))) changes.delete(scope);
      }
    }
    for (const [key, slot] of slots) {
      if (slot.lease === undefined && slot.granting === undefined && now - slot.usedAt > SLOT_IDLE_MS) slots.delete(key);
    }
    if (leases.size === 0) {
      clearInterval(ticker);
      ticker = undefined;
    }
  }

  function startTicker(): void {
    ticker ??= setInterval(tick, flushMs).unref();
  }

  /** Ends a leased request: its amount leaves the lease, its cost (if settled) joins the lease's spend. */
  function endRequest(lease: Lease, reservationId: string, actualMicros: bigint | null): void {
    const amountMicros = lease.requests.get(reservationId)!;
    lease.requests.delete(reservationId);
    leaseOf.delete(reservationId);
    const settledMicros = actualMicros ?? 0n;
    lease.inFlightMicros -= amountMicros;
    lease.settledMicros += settledMicros;
    change(lease, settledMicros, -amountMicros);
    if (used(lease) > lease.sentSpentMicros + lease.sentHoldMicros) {
      // It cost more than the lease holds: Redis must know before this process admits more on these scopes.
      for (const other of leases) if (other.scopes.some((scope) => lease.scopes.includes(scope))) retire(other);
      update(lease);
    } else if (lease.retired && lease.requests.size === 0) {
      update(lease);
    }
  }

  async function read(scope: string, seed?: SeedSpend): Promise<ScopeBalance> {
    for (;;) {
      const correction = unsent(scope, Date.now());
      const balance = await run(steps.read(scope, seed !== undefined));
      if (balance !== undefined) return add(balance, correction);
      await steps.seed([{ scope, limitMicros: null, seed }], [0]);
    }
  }

  return {
    async reserve(request: ReserveRequest): Promise<ReserveResult> {
      const ttlMs = validateReserveRequest(request);
      const { reservationId, amountMicros } = request;
      if (leaseOf.has(reservationId)) {
        // Already held: answered like a second RESERVE of the same id.
        return { ok: true, balances: await Promise.all(request.scopes.map(({ scope, seed }: ScopeLimit) => read(scope, seed))) };
      }
      const slot = slotFor(request, ttlMs);
      for (;;) {
        const lease = slot.lease;
        if (lease !== undefined) {
          if (canAdmit(lease, amountMicros)) return admitLocally(lease, reservationId, amountMicros);
          retire(lease);
        }
        if (slot.granting === undefined) break;
        await slot.granting.catch(() => undefined);
      }
      const granting = takeLease(slot, request, ttlMs);
      slot.granting = granting;
      try {
        return await granting;
      } finally {
        if (slot.granting === granting) slot.granting = undefined;
      }
    },

    async settle(reservationId: string, actualMicros: bigint): Promise<void> {
      assertValidMicros('actualMicros', actualMicros);
      const lease = leaseOf.get(reservationId);
      if (lease === undefined) return plain.settle(reservationId, actualMicros);
      endRequest(lease, reservationId, actualMicros);
    },

    async release(reservationId: string): Promise<void> {
      const lease = leaseOf.get(reservationId);
      if (lease === undefined) return plain.release(reservationId);
      endRequest(lease, reservationId, null);
    },

    /** Unreserved spend involves no lease: the plain ledger adds it (or keeps it while Redis is away). */
    spend: (reservationId, scopes, actualMicros) => plain.spend(reservationId, scopes, actualMicros),

    read,

    async close(): Promise<void> {
      redis.off('close', retireAll);
      clearInterval(ticker);
      ticker = undefined;
      for (const lease of leases) if (!retire(lease)) update(lease);
      await Promise.all(updates);
      await plain.close();
    },
  };
}
