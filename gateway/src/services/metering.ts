/**
 * Metering on the data plane: admit a request by reserving its worst-case cost on the
 * spend ledger (key, group and team, per month), then record what it really used —
 * priced with the catalog version in force, settled on the ledger, and handed to the
 * meter job exactly once (job id = request id). If the queue cannot take the event it
 * is written straight to the database, so no usage event is ever dropped.
 */
import {
  type Budget,
  billRequest,
  budgetLedgerScope,
  budgetWindowAt,
  costOfRequest,
  findPrice,
  fxRateAt,
  microsToDecimalString,
  emptyUsage,
  type PriceCatalog,
  type RequestCost,
  teamSpendMicros,
  totalTokens,
  type Usage,
} from '@spendgate/core';
import type { JobQueue, SpendLedger, SqlStore } from '@spendgate/store';
import { insertUsageEvents } from '@spendgate/store';
import { type JobPayloads, type UsageEventJob, usageEventRow } from '@spendgate/worker';
import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../errors.ts';
import type { Principal } from './principals.ts';

/** Output tokens assumed for the worst case when a request sets no limit. */
const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

export interface MeteredRequest {
  requestId: string;
  principal: Principal;
  /** The team connection that served it (null for operator upstreams). */
  connectionId: string | null;
  provider: string;
  endpoint: string;
  startedAt: Date;
}

/** The ledger counters a request counts on: each budget's current window; hard ones capped. */
export function budgetScopes(principal: Principal, at: Date) {
  return principal.budgets.map((budget) => ({
    budget,
    scope: budgetLedgerScope(budget, at, principal.timeZone),
    limitMicros: budget.mode === 'hard' ? budget.amountMicros : null,
  }));
}

/** What admission answers: the budget left on the tightest hard budget, and whether a downgrade budget is spent. */
export interface Admission {
  remainingMicros: bigint | undefined;
  /** A downgrade budget whose amount is spent: the request goes to a cheaper model of its family. */
  downgradeBudgetId: string | undefined;
}

/** The 402 a refused request gets: which budget, its limit, its spend, when it resets. */
function budgetRefusal(budget: Budget, spentMicros: bigint, at: Date, timeZone: string): AppError {
  const { end } = budgetWindowAt(budget.window, at, timeZone);
  const period = budget.window === 'total' ? 'in total' : `per ${budget.window}`;
  const resets = end ? `it resets at ${end.toISOString()}` : 'it does not reset';
  return new AppError(
    402,
    'budget_exceeded',
    `Budget exceeded: the ${budget.scope} budget ${budget.id} allows £${microsToDecimalString(budget.amountMicros)} ${period} ` +
      `and £${microsToDecimalString(spentMicros)} is spent or reserved; ${resets}`,
  );
}

export function createMetering(deps: {
  sql: SqlStore;
  ledger: SpendLedger;
  queue: JobQueue<JobPayloads>;
  catalog: PriceCatalog;
  log: FastifyBaseLogger;
}) {
  /** Priced with the team's own price when it has one for the model, else the list price. */
  const priceOf = (request: MeteredRequest, model: string, usage: Usage): RequestCost => {
    const overrides = request.principal.priceOverrides;
    const catalog = overrides && findPrice(overrides, request.provider, model, request.startedAt) ? overrides : deps.catalog;
    return costOfRequest(catalog, { provider: request.provider, model, usage, at: request.startedAt });
  };

  return {
    /**
     * Reserves the worst-case spend (GBP) on every budget that applies and answers what
     * is left on the tightest hard one. Throws the refusal: 402 when a hard budget would
     * overflow, 400 for an unpriced model the team forbids.
     */
    async admit(request: MeteredRequest, estimate: { model: string; promptTokens: number; maxOutputTokens?: number | undefined }): Promise<Admission> {
      const { principal, startedAt } = request;
      const usage = { ...emptyUsage(), inputTokens: estimate.promptTokens, outputTokens: estimate.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS };
      const worstCase = priceOf(request, estimate.model, usage);
      if (worstCase.status === 'unpriced' && !principal.allowUnpricedModels) {
        throw new AppError(400, 'model_unpriced', `Model "${estimate.model}" has no price and this team does not allow unpriced models`);
      }
      const scopes = budgetScopes(principal, startedAt);
      if (scopes.length === 0) return { remainingMicros: undefined, downgradeBudgetId: undefined };
      const bill = billRequest({ kind: principal.kind, plan: principal.plan, cost: worstCase, totalTokens: totalTokens(usage), at: startedAt });
      const admission = await deps.ledger.reserve({
        reservationId: request.requestId,
        scopes,
        amountMicros: teamSpendMicros(principal.kind, worstCase, bill, fxRateAt(startedAt)),
      });
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
      return { remainingMicros: remainingMicros === undefined ? undefined : remainingMicros < 0n ? 0n : remainingMicros, downgradeBudgetId };
    },

    /** Prices, settles and records one request's usage. Never throws. */
    async record(
      request: MeteredRequest,
      outcome: { model: string; usage: Usage; estimated: boolean; statusCode: number; streamed: boolean; route?: string },
    ): Promise<RequestCost> {
      const cost = priceOf(request, outcome.model, outcome.usage);
      const costMicros = cost.status === 'priced' ? cost.totalMicros : null;
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
        teamId: request.principal.teamId,
        groupId: request.principal.groupId,
        keyId: request.principal.keyId,
        connectionId: request.connectionId,
        provider: request.provider,
        model: outcome.model,
        endpoint: request.endpoint,
        statusCode: outcome.statusCode,
        streamed: outcome.streamed,
        estimated: outcome.estimated,
        usage: outcome.usage,
        costMicros: costMicros === null ? null : costMicros.toString(),
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
      await deps.ledger.settle(request.requestId, spent).catch((error: unknown) => {
        deps.log.error({ err: error, requestId: request.requestId }, 'ledger settle failed');
      });
      try {
        await deps.queue.enqueue('meter', job, { jobId: request.requestId });
      } catch (error) {
        deps.log.warn({ err: error, requestId: request.requestId }, 'queue unavailable; writing usage event directly');
        await insertUsageEvents(deps.sql.db, [usageEventRow(job)]).catch((directError: unknown) => {
          deps.log.error({ err: directError, event: job }, 'usage event could not be stored');
        });
      }
      return cost;
    },
  };
}

export type Metering = ReturnType<typeof createMetering>;
