/**
 * Metering on the data plane: admit a request by reserving its worst-case cost on the
 * spend ledger (every budget on its key, group and team, in the window of the team's
 * time zone; a counter the ledger does not know starts from the spend recorded in the
 * database), then record what it really used — priced with the catalog version in
 * force, settled on the ledger, and handed to the meter in a batch (the meter claims
 * each request id, so an event is counted once however often it is delivered).
 *
 * When the ledger is unreachable, a request under a hard budget is refused (503) at
 * once and any other goes through unreserved; its cost then goes to its budgets' counters
 * as unreserved spend (`ledger.spend`, kept by the ledger until it is reachable) instead
 * of a settlement, so soft and downgrade budgets still count what was served meanwhile.
 * When the queue cannot take an event in time it goes to the usage outbox, which
 * delivers it later: no event is ever dropped.
 */
import { randomUUID } from 'node:crypto';
import {
  type Budget,
  billRequest,
  budgetLedgerScope,
  budgetWindowAt,
  costOfRequest,
  findPrice,
  fxRateAt,
  microsToDecimalString,
  plainUsage,
  type PriceCatalog,
  type RequestCost,
  teamSpendMicros,
  totalTokens,
  type Usage,
} from '@spendgate/core';
import {
  type JobQueue,
  LedgerUnavailableError,
  type RateDecision,
  type RateLimiter,
  type RateLimits,
  type SpendLedger,
  type SqlStore,
  sumBudgetSpend,
} from '@spendgate/store';
import type { JobPayloads, UsageEventJob } from '@spendgate/worker';
import type { FastifyBaseLogger } from 'fastify';
import { AppError, TooManyRequestsError } from '../errors.ts';
import type { Principal } from './principals.ts';
import type { UsageOutbox } from './usage-outbox.ts';

/** Output tokens assumed for the worst case when a request sets no limit. */
const DEFAULT_MAX_OUTPUT_TOKENS = 4096;
/** How long a usage event may wait for the queue before it goes to the outbox. */
const ENQUEUE_DEADLINE_MS = 200;
/** After the queue failed, events go straight to the outbox for this long. */
const QUEUE_BACKOFF_MS = 1_000;
/**
 * Usage events go to the queue in batches: one job for what requests record within the
 * batch wait (or `MAX_BATCH` events), instead of one queue round trip and job per request.
 * A job's cost hardly depends on its size: BullMQ spends ~5 ms of CPU per job across
 * gateway, Redis and worker, and PGlite ~1.5 ms per statement (a 2-core cloud machine),
 * against ~35 µs per event. A 100-ms wait keeps that under 10 jobs a second at any load.
 * The wait bounds what a gateway killed outright (SIGKILL) loses before the queue has
 * it: less than the requests it had in flight, which last seconds.
 */
const BATCH_WAIT_MS = 100;
const MAX_BATCH = 1_000;

export interface MeteredRequest {
  requestId: string;
  principal: Principal;
  /** The team connection that served it (null for operator upstreams). */
  connectionId: string | null;
  provider: string;
  endpoint: string;
  startedAt: Date;
  /** Set by admission: the ledger was unreachable and the request went through without a reservation. */
  unreserved?: boolean;
}

/**
 * A budget's counter for the window containing `at` (in the team's time zone), seeded
 * from the budget spend of the usage events already recorded in that window.
 */
export function budgetCounter(sql: SqlStore, teamId: string, timeZone: string, budget: Budget, at: Date) {
  const window = budgetWindowAt(budget.window, at, timeZone);
  return {
    scope: budgetLedgerScope(budget, window),
    seed: () => sumBudgetSpend(sql.db, { teamId, scope: budget.scope, scopeId: budget.scopeId, from: window.start, to: window.end }),
  };
}

/** What admission answers: the budget left on the tightest hard budget, and whether a downgrade budget is spent. */
export interface Admission {
  remainingMicros: bigint | undefined;
  /** `x-ratelimit-*` headers when the key has rate limits. */
  rateLimitHeaders: Record<string, string>;
  /** A downgrade budget whose amount is spent: the request goes to a cheaper model of its family. */
  downgradeBudgetId: string | undefined;
}

/** The 402 a refused request gets: which budget, its limit, its spend, when it resets, what is left. */
function budgetRefusal(budget: Budget, spentMicros: bigint, at: Date, timeZone: string): AppError {
  const left = budget.amountMicros - spentMicros;
  const { end } = budgetWindowAt(budget.window, at, timeZone);
  const period = budget.window === 'total' ? 'in total' : `per ${budget.window}`;
  const resets = end ? `it resets at ${end.toISOString()}` : 'it does not reset';
  return new AppError(
    402,
    'budget_exceeded',
    `Budget exceeded: the ${budget.scope} budget ${budget.id} allows £${microsToDecimalString(budget.amountMicros)} ${period} ` +
      `and £${microsToDecimalString(spentMicros)} is spent or reserved; ${resets}`,
    { headers: { 'x-spendgate-budget-remaining': microsToDecimalString(left < 0n ? 0n : left) } },
  );
}

/** OpenAI's names for what is left of a key's limits. */
function rateLimitHeaders(limits: RateLimits, decision: RateDecision & { ok: true }): Record<string, string> {
  const headers: Record<string, string> = {};
  if (limits.requestsPerMinute !== undefined) {
    headers['x-ratelimit-limit-requests'] = String(limits.requestsPerMinute);
    headers['x-ratelimit-remaining-requests'] = String(decision.remainingRequests ?? 0);
  }
  if (limits.tokensPerMinute !== undefined) {
    headers['x-ratelimit-limit-tokens'] = String(limits.tokensPerMinute);
    headers['x-ratelimit-remaining-tokens'] = String(decision.remainingTokens ?? 0);
  }
  headers['x-ratelimit-reset'] = `${decision.resetSeconds}s`;
  return headers;
}

export function createMetering(deps: {
  sql: SqlStore;
  ledger: SpendLedger;
  rateLimiter: RateLimiter;
  queue: JobQueue<JobPayloads>;
  outbox: Pick<UsageOutbox, 'keep'>;
  catalog: PriceCatalog;
  log: FastifyBaseLogger;
}) {
  let queueBackoffUntil = 0;
  /** Bookkeeping of recorded requests still under way. */
  const inFlight = new Set<Promise<void>>();

  /** The ledger counters a request counts on: each budget's current window; hard ones capped. */
  const budgetScopes = (principal: Principal, at: Date) =>
    principal.budgets.map((budget) => {
      const { scope, seed } = budgetCounter(deps.sql, principal.teamId, principal.timeZone, budget, at);
      return { budget, scope, seed, limitMicros: budget.mode === 'hard' ? budget.amountMicros : null };
    });

  /**
   * Counts the request against the key's per-minute limits; 429 with retry-after when it
   * does not fit. An unreachable limiter lets the request through (limits are not caps on spend).
   */
  async function admitRate(request: MeteredRequest, promptTokens: () => number): Promise<Record<string, string>> {
    const limits = request.principal.settings.rateLimit;
    if (limits === undefined) return {};
    let decision: RateDecision;
    try {
      decision = await deps.rateLimiter.admit(request.principal.keyId, limits, limits.tokensPerMinute === undefined ? 0 : promptTokens());
    } catch (error) {
      deps.log.warn({ err: error, requestId: request.requestId }, 'rate limiter unreachable; not limiting this request');
      return {};
    }
    if (decision.ok) return rateLimitHeaders(limits, decision);
    const unit = decision.limit === 'requests' ? 'requests' : 'tokens';
    throw new TooManyRequestsError(
      decision.retryAfterSeconds,
      `Rate limit reached: this key allows ${decision.limitValue} ${unit} per minute; try again in ${decision.retryAfterSeconds} s`,
    );
  }

  /** Hands a batch to the queue, or to the outbox when the queue fails or is slow. */
  async function sendBatch(events: UsageEventJob[]): Promise<void> {
    if (Date.now() >= queueBackoffUntil) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the queue did not take the events within ${ENQUEUE_DEADLINE_MS} ms`)), ENQUEUE_DEADLINE_MS);
      });
      try {
        // Each batch is a job of its own; the meter's request-id claim makes a second delivery harmless.
        await Promise.race([deps.queue.enqueue('meter', { events }, { jobId: randomUUID() }), deadline]);
        return;
      } catch (error) {
        queueBackoffUntil = Date.now() + QUEUE_BACKOFF_MS;
        deps.log.warn({ err: error, events: events.length }, 'queue unavailable; keeping the usage events in the outbox');
      } finally {
        clearTimeout(timer);
      }
    }
    await deps.outbox.keep(events).catch((error: unknown) => {
      deps.log.error({ err: error, events }, 'usage events could not be stored');
    });
  }

  /** Keeps background work in `inFlight` until it ends (it never rejects). */
  function track(work: Promise<unknown>): void {
    const done = work.then(() => {
      inFlight.delete(done);
    });
    inFlight.add(done);
  }

  /** The usage events gathered for the next job: sent when full or `BATCH_WAIT_MS` after the first. */
  let gathering: { events: UsageEventJob[]; timer: NodeJS.Timeout } | undefined;

  function sendGathered(): void {
    if (gathering === undefined) return;
    clearTimeout(gathering.timer);
    const { events } = gathering;
    gathering = undefined;
    track(sendBatch(events));
  }

  function deliver(job: UsageEventJob): void {
    gathering ??= { events: [], timer: setTimeout(sendGathered, BATCH_WAIT_MS) };
    gathering.events.push(job);
    if (gathering.events.length >= MAX_BATCH) sendGathered();
  }

  /** The team's own prices, when they price the model. */
  const teamPricesFor = (request: MeteredRequest, model: string): PriceCatalog | undefined => {
    const overrides = request.principal.priceOverrides;
    return overrides && findPrice(overrides, request.provider, model, request.startedAt) ? overrides : undefined;
  };
  /** Priced with the team's own price when it has one for the model, else the list price. */
  const priceOf = (request: MeteredRequest, model: string, usage: Usage): RequestCost =>
    costOfRequest(teamPricesFor(request, model) ?? deps.catalog, { provider: request.provider, model, usage, at: request.startedAt });
  const hasPrice = (request: MeteredRequest, model: string): boolean =>
    teamPricesFor(request, model) !== undefined || findPrice(deps.catalog, request.provider, model, request.startedAt) !== undefined;

  return {
    /**
     * Reserves the worst-case spend (GBP) on every budget that applies and answers what
     * is left on the tightest hard one. Throws the refusal: 402 when a hard budget would
     * overflow, 400 for an unpriced model the team forbids.
     *
     * The worst case is first taken on `promptTokenBound` (no prompt has more tokens than
     * its request has bytes), which costs nothing to know; the prompt is counted only when
     * that bound does not fit, and the request refused only if its counted worst case
     * does not fit either. Either way what is reserved is never below the prompt's estimate.
     */
    async admit(
      request: MeteredRequest,
      estimate: { model: string; promptTokens: () => number; promptTokenBound: number | undefined; maxOutputTokens?: number | undefined },
    ): Promise<Admission> {
      const { principal, startedAt } = request;
      const rateHeaders = await admitRate(request, estimate.promptTokens);
      // Whether a model has a price does not depend on the tokens: no need to count them for that.
      if (!principal.allowUnpricedModels && !hasPrice(request, estimate.model)) {
        throw new AppError(400, 'model_unpriced', `Model "${estimate.model}" has no price and this team does not allow unpriced models`);
      }
      const scopes = budgetScopes(principal, startedAt);
      if (scopes.length === 0) return { remainingMicros: undefined, rateLimitHeaders: rateHeaders, downgradeBudgetId: undefined };
      const reserveFor = (promptTokens: number) => {
        const usage = plainUsage(promptTokens, estimate.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS);
        const worstCase = priceOf(request, estimate.model, usage);
        const bill = billRequest({ kind: principal.kind, plan: principal.plan, cost: worstCase, totalTokens: totalTokens(usage), at: startedAt });
        return deps.ledger.reserve({
          reservationId: request.requestId,
          scopes,
          amountMicros: teamSpendMicros(principal.kind, worstCase, bill, fxRateAt(startedAt)),
        });
      };
      let admission: Awaited<ReturnType<SpendLedger['reserve']>>;
      try {
        admission = await reserveFor(estimate.promptTokenBound ?? estimate.promptTokens());
        if (!admission.ok && estimate.promptTokenBound !== undefined) admission = await reserveFor(estimate.promptTokens());
      } catch (error) {
        if (!(error instanceof LedgerUnavailableError)) throw error;
        if (scopes.some(({ limitMicros }) => limitMicros !== null)) {
          throw new AppError(503, 'budget_unavailable', 'Budgets cannot be checked right now, so requests on keys with a hard budget are refused; try again shortly');
        }
        deps.log.warn({ requestId: request.requestId }, 'spend ledger unreachable; admitting a request without a hard budget unreserved');
        request.unreserved = true;
        return { remainingMicros: undefined, rateLimitHeaders: rateHeaders, downgradeBudgetId: undefined };
      }
      if (!admission.ok) {
        const refused = scopes.find((candidate) => candidate.scope === admission.scope)!;
        throw budgetRefusal(refused.budget, admission.spentMicros + admission.reservedMicros, startedAt, principal.timeZone);
      }
      // What is left on the tightest hard budget once this request's reservation is counted.
      let remainingMicros: bigint | undefined;
      let downgradeBudgetId: string | undefined;
      scopes.forEach(({ budget, limitMicros }, index) => {
        const { spentMicros, reservedMicros } = admission.balances[index]!;
        if (budget.mode === 'downgrade' && spentMicros >= budget.amountMicros) downgradeBudgetId ??= budget.id;
        if (limitMicros === null) return;
        const left = limitMicros - spentMicros - reservedMicros;
        remainingMicros = remainingMicros === undefined || left < remainingMicros ? left : remainingMicros;
      });
      return {
        remainingMicros: remainingMicros === undefined ? undefined : remainingMicros < 0n ? 0n : remainingMicros,
        rateLimitHeaders: rateHeaders,
        downgradeBudgetId,
      };
    },

    /** Frees a request's reservation when it ends before reaching any provider (nothing to record). */
    async release(request: MeteredRequest): Promise<void> {
      if (request.principal.budgets.length === 0 || request.unreserved) return;
      await deps.ledger.release(request.requestId).catch((error: unknown) => {
        deps.log.error({ err: error, requestId: request.requestId }, 'ledger release failed');
      });
    },

    /**
     * Prices one request's usage and answers its cost; settling it on the ledger, handing
     * the event to the meter and counting its tokens go on in the background (`settled`
     * waits for them), so no answer waits for bookkeeping. The settlement is issued
     * before this returns, so a later request from this gateway finds it counted (the
     * in-process ledger applies it at once; the Redis ledger counts it at once in the
     * lease that admitted the request, or sends it at once for a plain reservation this
     * process made, and Redis runs one connection's commands in order). A request admitted
     * unreserved adds its cost as unreserved spend on the budget counters admission
     * computed (the windows of `startedAt`).
     * Never throws.
     */
    record(
      request: MeteredRequest,
      outcome: { model: string; usage: Usage; estimated: boolean; statusCode: number; streamed: boolean; route?: string },
    ): RequestCost {
      const cost = priceOf(request, outcome.model, outcome.usage);
      const { principal } = request;
      const bill = billRequest({
        kind: principal.kind,
        plan: principal.plan,
        cost,
        totalTokens: totalTokens(outcome.usage),
        at: request.startedAt,
      });
      const spent = teamSpendMicros(principal.kind, cost, bill, fxRateAt(request.startedAt));
      const job: UsageEventJob = {
        requestId: request.requestId,
        occurredAt: request.startedAt.toISOString(),
        teamId: principal.teamId,
        groupId: principal.groupId,
        keyId: principal.keyId,
        connectionId: request.connectionId,
        provider: request.provider,
        model: outcome.model,
        endpoint: request.endpoint,
        statusCode: outcome.statusCode,
        streamed: outcome.streamed,
        estimated: outcome.estimated,
        usage: outcome.usage,
        costMicros: cost.status === 'priced' ? cost.totalMicros.toString() : null,
        currency: 'USD',
        priceVersion: cost.status === 'priced' ? cost.priceVersion : null,
        latencyMs: Date.now() - request.startedAt.getTime(),
        keyKind: principal.kind,
        billedMicros: bill.billedMicros === null ? null : bill.billedMicros.toString(),
        billingRule: bill.rule,
        fxRatePpm: bill.fxRatePpm.toString(),
        budgetSpendMicros: spent.toString(),
        route: outcome.route ?? 'requested',
      };
      if (request.unreserved) {
        track(
          deps.ledger.spend(request.requestId, budgetScopes(principal, request.startedAt), spent).catch((error: unknown) => {
            deps.log.error({ err: error, requestId: request.requestId }, 'ledger spend failed');
          }),
        );
      } else if (principal.budgets.length > 0) {
        track(
          deps.ledger.settle(request.requestId, spent).catch((error: unknown) => {
            deps.log.error({ err: error, requestId: request.requestId }, 'ledger settle failed');
          }),
        );
      }
      deliver(job);
      if (principal.settings.rateLimit?.tokensPerMinute !== undefined) {
        track(
          deps.rateLimiter.addTokens(principal.keyId, totalTokens(outcome.usage)).catch((error: unknown) => {
            deps.log.warn({ err: error, requestId: request.requestId }, 'rate limiter unreachable; tokens not counted');
          }),
        );
      }
      return cost;
    },

    /** Resolves once every recording started so far is settled and delivered (before shutdown). */
    async settled(): Promise<void> {
      for (sendGathered(); inFlight.size > 0; sendGathered()) await Promise.all(inFlight);
    },
  };
}

export type Metering = ReturnType<typeof createMetering>;
