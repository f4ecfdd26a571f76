/**
 * Metering on the data plane: admit a request by reserving its worst-case cost on the
 * spend ledger (key, group and team, per month), then record what it really used —
 * priced with the catalog version in force, settled on the ledger, and handed to the
 * meter job exactly once (job id = request id). If the queue cannot take the event it
 * is written straight to the database, so no usage event is ever dropped.
 */
import { costOfRequest, emptyUsage, type PriceCatalog, type RequestCost, type Usage } from '@spendgate/core';
import type { JobQueue, SpendLedger, SqlStore } from '@spendgate/store';
import { insertUsageEvents } from '@spendgate/store';
import { type JobPayloads, type UsageEventJob, usageEventRow } from '@spendgate/worker';
import type { FastifyBaseLogger } from 'fastify';
import type { Principal } from './principals.ts';

/** Output tokens assumed for the worst case when a request sets no limit. */
const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

export interface MeteredRequest {
  requestId: string;
  principal: Principal;
  provider: string;
  endpoint: string;
  startedAt: Date;
}

export function budgetScopes(principal: Principal, at: Date) {
  const month = at.toISOString().slice(0, 7);
  return [
    { scope: `team:${principal.teamId}:${month}`, limitMicros: null },
    { scope: `group:${principal.groupId}:${month}`, limitMicros: null },
    { scope: `key:${principal.keyId}:${month}`, limitMicros: null },
  ];
}

export function createMetering(deps: {
  sql: SqlStore;
  ledger: SpendLedger;
  queue: JobQueue<JobPayloads>;
  catalog: PriceCatalog;
  log: FastifyBaseLogger;
}) {
  const priceOf = (provider: string, model: string, usage: Usage, at: Date): RequestCost =>
    costOfRequest(deps.catalog, { provider, model, usage, at });

  return {
    /** Reserves the worst case; resolves to the refusal when a budget would overflow. */
    async admit(request: MeteredRequest, estimate: { model: string; promptTokens: number; maxOutputTokens?: number | undefined }) {
      const worstCase = priceOf(
        request.provider,
        estimate.model,
        { ...emptyUsage(), inputTokens: estimate.promptTokens, outputTokens: estimate.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS },
        request.startedAt,
      );
      return deps.ledger.reserve({
        reservationId: request.requestId,
        scopes: budgetScopes(request.principal, request.startedAt),
        amountMicros: worstCase.status === 'priced' ? worstCase.totalMicros : 0n,
      });
    },

    /** Prices, settles and records one request's usage. Never throws. */
    async record(
      request: MeteredRequest,
      outcome: { model: string; usage: Usage; estimated: boolean; statusCode: number; streamed: boolean },
    ): Promise<RequestCost> {
      const cost = priceOf(request.provider, outcome.model, outcome.usage, request.startedAt);
      const costMicros = cost.status === 'priced' ? cost.totalMicros : null;
      const job: UsageEventJob = {
        requestId: request.requestId,
        occurredAt: request.startedAt.toISOString(),
        teamId: request.principal.teamId,
        groupId: request.principal.groupId,
        keyId: request.principal.keyId,
        connectionId: request.principal.connection?.id ?? null,
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
      };
      await deps.ledger.settle(request.requestId, costMicros ?? 0n).catch((error: unknown) => {
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
