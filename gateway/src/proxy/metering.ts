/**
 * Metering on the data plane: admit a request by reserving its worst-case cost on the
 * spend ledger (every budget on its key, group and team, in the window of the team's
 * time zone; a counter the ledger does not know starts from the spend recorded in the
 * database), then record what it really used — priced with the catalog version in
 * force, settled on the ledger, and handed to the meter in a batch (the meter claims
 * each request id, so an event is counted once however often it is delivered) with the
 * model and output limit the caller asked and its body's fingerprint (HMAC-SHA256 under
 * the team's key, body-hash.ts), hashed as the batch leaves.
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
  AppError,
  type Budget,
  budgetWindowAt,
  chargedBill,
  findPrice,
  maxOutputTokensOf,
  microsToDecimalString,
  type PriceCatalog,
  plainUsage,
  priceRequest,
  type RequestCost,
  type RequestToPrice,
  subscriptionAccess,
  TooManyRequestsError,
  totalTokens,
  type Usage,
  worstCaseSpendMicros,
} from '@spendgate/core';
import {
  budgetCounter,
  type JobPayloads,
  type JobQueue,
  LedgerUnavailableError,
  type RateDecision,
  type RateLimiter,
  type RateLimits,
  type SpendLedger,
  type SqlStore,
  type UsageEventJob,
} from '@spendgate/store';
import type { FastifyBaseLogger } from 'fastify';
import type { ObservedTrace, RequestObserver } from '../observability/request-observer.ts';
import { catalogFor } from '../team-prices.ts';
import type { BodyHasher } from './body-hash.ts';
import type { Principal } from './principals.ts';
import type { UsageOutbox } from './usage-outbox.ts';

/**
 * Output tokens a request without a limit is reserved for when its model's maximum is
 * not known; under a hard budget the provider is then sent this limit, so the
 * reservation holds.
 */
export const ASSUMED_MAX_OUTPUT_TOKENS = 4_096;
/** The smallest answer worth sending: a hard budget that cannot afford this many output tokens refuses. */
export const MIN_ANSWER_TOKENS = 16;
/**
 * Near a cap, the prompt is reserved on its counted tokens rather than its byte bound: a
 * budget is near its cap when what is left after a reservation would not cover this many
 * more like it. Above that, admission costs no counting.
 */
const NEAR_CAP_REQUESTS = 200n;
/**
 * A counted prompt is reserved at 5/4 of tiktoken's count: providers count with their own
 * tokenizers (Claude's gives up to ~25 % more tokens than o200k for the same text), and
 * a reservation below the provider's count would let concurrent requests pass the cap.
 */
const promptWithMargin = (counted: number) => Math.ceil((counted * 5) / 4);
/** Times admission may lower the output limit as other requests take the budget meanwhile. */
const MAX_CAP_TRIES = 3;
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
  /** The body as the caller sent it: its SHA-256 goes on the usage event (the body never does). */
  bodyBytes: Buffer;
  /** The model the caller asked for (the model served may differ: a key's override, routing, failover, a dated snapshot). */
  requestedModel: string;
  /** The output limit the request asked for per answer (max_tokens by surface), under the key's cap; undefined when none. */
  requestedOutputTokens: number | undefined;
  /** When the provider's answer began and the caller's first byte left (ms since the epoch); set by the relay. */
  firstByteAt: number | undefined;
  /** Its span's trace context, sent to the provider; set by the relay when the gateway traces. */
  trace: ObservedTrace | undefined;
}

/** What a request used and how it ended, as the data plane knows it when it is over. */
export interface UsageOutcome {
  /** The model that served it, as the provider named it. */
  model: string;
  usage: Usage;
  estimated: boolean;
  statusCode: number;
  streamed: boolean;
  route?: string;
}

/** What admission answers: the budget left on the tightest hard budget, and whether a downgrade budget is spent. */
export interface Admission {
  remainingMicros: bigint | undefined;
  /** `x-ratelimit-*` headers when the key has rate limits. */
  rateLimitHeaders: Record<string, string>;
  /** A downgrade budget whose amount is spent: the request goes to a cheaper model of its family. */
  downgradeBudgetId: string | undefined;
  /**
   * The output limit (per choice) the provider must be sent, when a hard budget set one:
   * what the tightest budget affords, or the assumed maximum of a model whose own is unknown.
   */
  outputCap: { tokens: number; reason: 'budget' | 'model-limit-unknown' } | undefined;
}

/** What admission knows of a request before it is sent. */
export interface AdmissionEstimate {
  /** Every provider model the request may be served by (the dearest is reserved). */
  candidates: readonly { provider: string; model: string }[];
  /** The prompt's counted tokens (tiktoken), asked only near a cap or for a token rate limit. */
  promptTokens: () => Promise<number>;
  /** An upper bound of the prompt's tokens that costs nothing to know (its bytes), when there is one. */
  promptTokenBound: number | undefined;
  /** The caller's output limit per choice; undefined: the model's maximum. 0 for operations without output. */
  maxOutputTokens: number | undefined;
  /** Answers asked for (OpenAI's `n`). */
  choices: number;
}

/** Why a demo team's optimised key is not served: its requests are never billed. */
const DEMO_TEAM_OPTIMISED_REFUSAL =
  "A demo team is never billed, so its optimised keys are not served: Spendgate's provider accounts would pay for them. Issue the key on one of your own teams.";

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

/** The 402 a request gets whose cost a hard budget cannot bound: its model has no price. */
function unboundedRefusal(budget: Budget, model: string): AppError {
  return new AppError(
    402,
    'budget_unpriced_model',
    `Model "${model}" has no price, so the hard ${budget.scope} budget ${budget.id} cannot bound what it would cost: ` +
      'keys under a hard budget may use only priced models (a team admin can add a price for it)',
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
  hashBodies: BodyHasher;
  /** Where an account adds a payment method (the console's subscription screen), named in a 402 `payment_required`. */
  subscriptionUrl: string;
  /** The clock the subscription's access rule reads (trial ends); tests set it. */
  now?: () => Date;
  /** The gateway's own observability, told of every request recorded and every budget refusal; undefined when off. */
  observer?: RequestObserver | undefined;
}) {
  const now = deps.now ?? (() => new Date());
  let queueBackoffUntil = 0;
  /** Usage events gathered or on their way to the queue (or outbox): the gateway's part of the meter's backlog. */
  let eventsHeld = 0;
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
  async function admitRate(principal: Principal, promptTokens: () => Promise<number>): Promise<Record<string, string>> {
    const limits = principal.settings.rateLimit;
    if (limits === undefined) return {};
    let decision: RateDecision;
    try {
      decision = await deps.rateLimiter.admit(principal.keyId, limits, limits.tokensPerMinute === undefined ? 0 : await promptTokens());
    } catch (error) {
      deps.log.warn({ err: error, keyId: principal.keyId }, 'rate limiter unreachable; not limiting this request');
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

  /**
   * The usage events gathered for the next job, with their request bodies: sent when full
   * or `BATCH_WAIT_MS` after the first.
   */
  let gathering: { events: UsageEventJob[]; bodies: Buffer[]; timer: NodeJS.Timeout } | undefined;

  function sendGathered(): void {
    if (gathering === undefined) return;
    clearTimeout(gathering.timer);
    const { events, bodies } = gathering;
    gathering = undefined;
    // Each body is hashed once, on later turns of the event loop than the request that recorded it, so no answer waits for it.
    track(
      deps
        .hashBodies(events.map((event, index) => ({ teamId: event.teamId, body: bodies[index]! })))
        .then((hashes) => {
          for (let index = 0; index < events.length; index++) events[index]!.bodyHmac = hashes[index]!;
          return sendBatch(events);
        })
        .finally(() => {
          eventsHeld -= events.length;
        }),
    );
  }

  function deliver(job: UsageEventJob, body: Buffer): void {
    gathering ??= { events: [], bodies: [], timer: setTimeout(sendGathered, BATCH_WAIT_MS) };
    gathering.events.push(job);
    gathering.bodies.push(body);
    eventsHeld += 1;
    if (gathering.events.length >= MAX_BATCH) sendGathered();
  }

  /**
   * Which keys are served, from the cached principal: a demo team, never billed, has no
   * optimised key served (403 `demo_team`: Spendgate's provider accounts would pay for
   * it); and the subscription's access rule (core's subscriptionAccess): after a trial
   * that ended without a payment method, or a cancellation, optimised and BYOM keys get
   * 402 `payment_required` saying why; BYOK keys go on.
   */
  const refuseStoppedKey = (principal: Principal) => {
    if (principal.isDemo && principal.kind === 'optimised') throw new AppError(403, 'demo_team', DEMO_TEAM_OPTIMISED_REFUSAL);
    if (!principal.subscription) return;
    const access = subscriptionAccess(principal.subscription, now());
    if (!access.keys[principal.kind]) throw new AppError(402, 'payment_required', `${access.stoppedBecause} Add a payment method at ${deps.subscriptionUrl}`);
  };

  /** A budget's refusal of `request`, told to the observer. */
  const refusedByBudget = (request: MeteredRequest, refusal: AppError): AppError => {
    deps.observer?.budgetRefused(request.principal.plan.slug, request.endpoint, refusal.code);
    return refusal;
  };

  /** The team's own prices when they price the model, else the list prices. */
  const pricesFor = (principal: Principal, provider: string, model: string, at: Date): PriceCatalog => catalogFor(principal.priceOverrides, deps.catalog, provider, model, at);
  const hasPrice = (principal: Principal, provider: string, model: string, at: Date): boolean =>
    findPrice(pricesFor(principal, provider, model, at), provider, model, at) !== undefined;
  const toPrice = (request: MeteredRequest, provider: string, model: string, usage: Usage): RequestToPrice => ({
    kind: request.principal.kind,
    plan: request.principal.plan,
    provider,
    model,
    usage,
    at: request.startedAt,
  });

  /**
   * Counts the request on the key's rate limits and reserves its worst-case spend (GBP)
   * on every budget that applies, and answers what is left on the tightest hard one.
   * Throws the refusal: 402 `payment_required` for an optimised or BYOM key whose
   * subscription has stopped them; 429 over a rate limit; 400 for an unpriced model the team
   * forbids; 402 when a hard budget applies and a candidate model has no price (its cost
   * could not be bounded), or when not even `MIN_ANSWER_TOKENS` of output fit.
   *
   * The worst case is the dearest candidate with the prompt's tokens and the caller's
   * output limit, or the model's maximum output (`ASSUMED_MAX_OUTPUT_TOKENS` when not
   * known: under a hard budget the provider is then sent that limit). The prompt is
   * first taken at its byte bound (no prompt has more tokens than bytes), which costs
   * nothing to know; it is counted (with a margin for other tokenizers) when that bound
   * does not fit, or when what is left
   * would not cover `NEAR_CAP_REQUESTS` more such reservations, and the reservation
   * then made on the count. When the worst case does not fit a hard budget, the output
   * limit is lowered to what the budget affords (`outputCap`).
   */
  async function admitRequest(request: MeteredRequest, estimate: AdmissionEstimate): Promise<Admission> {
    const { principal, startedAt } = request;
    refuseStoppedKey(principal);
    const rateHeaders = await admitRate(principal, estimate.promptTokens);
    for (const { provider, model } of estimate.candidates) {
      if (!principal.allowUnpricedModels && !hasPrice(principal, provider, model, startedAt)) {
        throw new AppError(400, 'model_unpriced', `Model "${model}" has no price and this team does not allow unpriced models`);
      }
    }
    const scopes = budgetScopes(principal, startedAt);
    const unlimited = { remainingMicros: undefined, rateLimitHeaders: rateHeaders, downgradeBudgetId: undefined, outputCap: undefined };
    if (scopes.length === 0) return unlimited;
    const hardBudget = scopes.find(({ limitMicros }) => limitMicros !== null)?.budget;

    // Output per choice: at most the caller's limit and the model's maximum (assumed when not known).
    const outputOf = (model: string) => {
      const modelMax = maxOutputTokensOf(model);
      if (estimate.maxOutputTokens === undefined) return modelMax ?? ASSUMED_MAX_OUTPUT_TOKENS;
      return modelMax === undefined ? estimate.maxOutputTokens : Math.min(estimate.maxOutputTokens, modelMax);
    };
    let outputCap: Admission['outputCap'];
    if (hardBudget && estimate.maxOutputTokens === undefined && estimate.candidates.some(({ model }) => maxOutputTokensOf(model) === undefined)) {
      outputCap = { tokens: ASSUMED_MAX_OUTPUT_TOKENS, reason: 'model-limit-unknown' };
    }
    /** The dearest candidate's worst case with this prompt and output per choice; undefined when it cannot be bounded. */
    const worstCase = (promptTokens: number, outputPerChoice: (model: string) => number) => {
      let dearest: { micros: bigint; model: string } | undefined;
      for (const { provider, model } of estimate.candidates) {
        const usage = plainUsage(promptTokens, outputPerChoice(model) * estimate.choices);
        const micros = worstCaseSpendMicros(pricesFor(principal, provider, model, startedAt), toPrice(request, provider, model, usage));
        if (micros === undefined) {
          if (hardBudget) throw refusedByBudget(request, unboundedRefusal(hardBudget, model));
          continue;
        }
        if (!dearest || micros > dearest.micros) dearest = { micros, model };
      }
      return dearest?.micros ?? 0n;
    };
    const reserve = (amountMicros: bigint) => deps.ledger.reserve({ reservationId: request.requestId, scopes, amountMicros });
    /** The hard budget's headroom after this admission, or before it for a refusal. */
    const tightestLeft = (result: Awaited<ReturnType<typeof reserve>>): bigint | undefined => {
      if (!result.ok) return result.limitMicros - result.spentMicros - result.reservedMicros;
      let left: bigint | undefined;
      scopes.forEach(({ limitMicros }, index) => {
        if (limitMicros === null) return;
        const { spentMicros, reservedMicros } = result.balances[index]!;
        const scopeLeft = limitMicros - spentMicros - reservedMicros;
        if (left === undefined || scopeLeft < left) left = scopeLeft;
      });
      return left;
    };

    let admission: Awaited<ReturnType<typeof reserve>>;
    try {
      const fullOutput = (model: string) => outputCap?.tokens ?? outputOf(model);
      const countedPrompt = async () => promptWithMargin(await estimate.promptTokens());
      let prompt = estimate.promptTokenBound ?? (await countedPrompt());
      let amount = worstCase(prompt, fullOutput);
      admission = await reserve(amount);
      if (estimate.promptTokenBound !== undefined) {
        const left = tightestLeft(admission);
        const nearCap = !admission.ok || (left !== undefined && left < amount * NEAR_CAP_REQUESTS);
        if (nearCap) {
          const counted = await countedPrompt();
          if (counted < prompt) {
            prompt = counted;
            amount = worstCase(prompt, fullOutput);
            if (admission.ok) await deps.ledger.release(request.requestId);
            admission = await reserve(amount);
          }
        }
      }
      // The hard budget cannot cover the worst case: send the provider what it affords.
      for (let tries = 0; !admission.ok && tries < MAX_CAP_TRIES && estimate.maxOutputTokens !== 0; tries++) {
        const left = tightestLeft(admission)!;
        const fits = (perChoice: number) => worstCase(prompt, () => perChoice) <= left;
        const ceiling = Math.min(...estimate.candidates.map(({ model }) => fullOutput(model)));
        if (ceiling <= MIN_ANSWER_TOKENS || !fits(MIN_ANSWER_TOKENS)) break;
        let low = MIN_ANSWER_TOKENS;
        let high = ceiling - 1;
        while (low < high) {
          const middle = Math.ceil((low + high) / 2);
          if (fits(middle)) low = middle;
          else high = middle - 1;
        }
        outputCap = { tokens: low, reason: 'budget' };
        admission = await reserve(worstCase(prompt, () => low));
      }
    } catch (error) {
      if (!(error instanceof LedgerUnavailableError)) throw error;
      if (hardBudget) {
        throw refusedByBudget(
          request,
          new AppError(503, 'budget_unavailable', 'Budgets cannot be checked right now, so requests on keys with a hard budget are refused; try again shortly'),
        );
      }
      deps.log.warn({ requestId: request.requestId }, 'spend ledger unreachable; admitting a request without a hard budget unreserved');
      request.unreserved = true;
      return unlimited;
    }
    if (!admission.ok) {
      const refused = scopes.find((candidate) => candidate.scope === admission.scope)!;
      throw refusedByBudget(request, budgetRefusal(refused.budget, admission.spentMicros + admission.reservedMicros, startedAt, principal.timeZone));
    }
    // What is left on the tightest hard budget once this request's reservation is counted.
    let downgradeBudgetId: string | undefined;
    scopes.forEach(({ budget }, index) => {
      if (budget.mode === 'downgrade' && admission.balances[index]!.spentMicros >= budget.amountMicros) downgradeBudgetId ??= budget.id;
    });
    const remainingMicros = tightestLeft(admission);
    return {
      remainingMicros: remainingMicros === undefined ? undefined : remainingMicros < 0n ? 0n : remainingMicros,
      rateLimitHeaders: rateHeaders,
      downgradeBudgetId,
      outputCap,
    };
  }

  return {
    admit: admitRequest,

    /** Counts a request that reaches no provider (count_tokens answered here) on the key's rate limits. */
    admitRate,

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
    record(request: MeteredRequest, outcome: UsageOutcome): RequestCost {
      const { principal, provider } = request;
      const { cost, bill: planBill, budgetSpendMicros: spent } = priceRequest(
        pricesFor(principal, provider, outcome.model, request.startedAt),
        toPrice(request, provider, outcome.model, outcome.usage),
      );
      const bill = chargedBill(principal, planBill);
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
        requestedModel: request.requestedModel,
        requestedOutputTokens: request.requestedOutputTokens,
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
      deliver(job, request.bodyBytes);
      if (principal.settings.rateLimit?.tokensPerMinute !== undefined) {
        track(
          deps.rateLimiter.addTokens(principal.keyId, totalTokens(outcome.usage)).catch((error: unknown) => {
            deps.log.warn({ err: error, requestId: request.requestId }, 'rate limiter unreachable; tokens not counted');
          }),
        );
      }
      deps.observer?.requestEnded(request, outcome, cost.status === 'priced' ? cost.totalMicros : undefined);
      return cost;
    },

    /**
     * Records a request whose outcome is still being worked out (a cut stream's output,
     * counted on the tokenizer's thread): `settled` waits for it, so a shutdown loses no
     * event. Never throws.
     */
    recordWhenKnown(request: MeteredRequest, outcome: Promise<UsageOutcome>): void {
      track(
        outcome.then(
          (known) => this.record(request, known),
          (error: unknown) => deps.log.error({ err: error, requestId: request.requestId }, 'usage of a cut stream could not be worked out'),
        ),
      );
    },

    /** Usage events this gateway holds that no queue (or outbox) has yet: gathered, or being hashed and handed over. */
    heldEvents: () => eventsHeld,

    /** Resolves once every recording started so far is settled and delivered (before shutdown). */
    async settled(): Promise<void> {
      for (sendGathered(); inFlight.size > 0; sendGathered()) await Promise.all(inFlight);
    },
  };
}

export type Metering = ReturnType<typeof createMetering>;
