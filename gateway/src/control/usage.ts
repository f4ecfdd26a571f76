// Usage read models for the console: tokens and cost of a team, narrowed to a group or
// a connection, over a date range (yyyy-mm-dd in UTC, endDate inclusive; by default
// the last 30 days up to today).
import { microsToDecimalString } from '@spendgate/core';
import { type SqlStore, sumUsage } from '@spendgate/store';
import type { Access } from './access.ts';

const DAY_MS = 86_400_000;
const DEFAULT_RANGE_DAYS = 30;

export interface DateRange {
  startDate?: string | undefined;
  endDate?: string | undefined;
}

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

export function createUsageService(deps: { sql: SqlStore; access: Access; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());

  async function totals(scope: { teamId: string; groupId?: string; connectionId?: string }, range: DateRange) {
    const endDate = range.endDate ?? isoDay(now());
    const startDate = range.startDate ?? isoDay(new Date(Date.parse(`${endDate}T00:00:00Z`) - (DEFAULT_RANGE_DAYS - 1) * DAY_MS));
    const from = new Date(`${startDate}T00:00:00Z`);
    const to = new Date(Date.parse(`${endDate}T00:00:00Z`) + DAY_MS);
    const sums = await sumUsage(deps.sql.db, { ...scope, from, to });
    const totalTokens = sums.inputTokens + sums.cachedReadTokens + sums.cacheWriteTokens + sums.outputTokens;
    return {
      ...(scope.groupId ? { groupId: scope.groupId } : {}),
      ...(scope.connectionId ? { connectionId: scope.connectionId } : {}),
      startDate,
      endDate,
      requests: sums.requests,
      totalTokens: Number(totalTokens),
      inputTokens: Number(sums.inputTokens),
      cachedReadTokens: Number(sums.cachedReadTokens),
      cacheWriteTokens: Number(sums.cacheWriteTokens),
      outputTokens: Number(sums.outputTokens),
      reasoningTokens: Number(sums.reasoningTokens),
      currency: 'USD',
      totalCost: microsToDecimalString(sums.costMicros),
      totalCostMicros: sums.costMicros.toString(),
      unpricedRequests: sums.unpricedRequests,
      estimatedRequests: sums.estimatedRequests,
    };
  }

  return {
    totals,

    async groupUsage(userId: string, query: { groupId: string; startDate: string; endDate: string }) {
      const group = await deps.access.group(query.groupId, userId, 'group.view');
      return totals({ teamId: group.team_id, groupId: group.id }, query);
    },
  };
}

export type UsageService = ReturnType<typeof createUsageService>;
