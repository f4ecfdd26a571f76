// Usage read models for the console: a group's tokens and cost over a date range.
import { microsToDecimalString } from '@spendgate/core';
import { type SqlStore, sumGroupUsage } from '@spendgate/store';
import type { TenancyService } from './tenancy.ts';

const DAY_MS = 86_400_000;

export function createUsageService(deps: { sql: SqlStore; tenancy: TenancyService }) {
  return {
    /** Dates are yyyy-mm-dd in UTC; endDate is inclusive. */
    async groupUsage(userId: string, query: { groupId: string; startDate: string; endDate: string }) {
      const group = await deps.tenancy.groupForUser(query.groupId, userId);
      const from = new Date(`${query.startDate}T00:00:00Z`);
      const to = new Date(new Date(`${query.endDate}T00:00:00Z`).getTime() + DAY_MS);
      const totals = await sumGroupUsage(deps.sql.db, { teamId: group.team_id, groupId: group.id, from, to });
      const totalTokens =
        totals.inputTokens + totals.cachedReadTokens + totals.cacheWriteTokens + totals.outputTokens;
      return {
        groupId: group.id,
        startDate: query.startDate,
        endDate: query.endDate,
        requests: totals.requests,
        totalTokens: Number(totalTokens),
        inputTokens: Number(totals.inputTokens),
        cachedReadTokens: Number(totals.cachedReadTokens),
        cacheWriteTokens: Number(totals.cacheWriteTokens),
        outputTokens: Number(totals.outputTokens),
        reasoningTokens: Number(totals.reasoningTokens),
        currency: 'USD',
        totalCost: microsToDecimalString(totals.costMicros),
        totalCostMicros: totals.costMicros.toString(),
        unpricedRequests: totals.unpricedRequests,
        estimatedRequests: totals.estimatedRequests,
      };
    },
  };
}
