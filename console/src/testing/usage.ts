// Usage totals as the API answers them, for component tests: a cost in GBP micro-units
// with its USD list price, requests and tokens; the decimal amounts are written from the
// micro-units as the API writes them (core's microsToDecimalString).
import { microsToDecimalString } from '@spendgate/core';
import type { MonthUsage } from '../api/connections/types.ts';
import type { UsageAmounts, UsageTotals } from '../api/usage/types.ts';

export function usageAmounts(figures: { requests: number; costMicros: bigint; costUsdMicros: bigint; inputTokens?: number; outputTokens?: number }): UsageAmounts {
  const inputTokens = figures.inputTokens ?? 0;
  const outputTokens = figures.outputTokens ?? 0;
  return {
    currency: 'GBP',
    totalCost: microsToDecimalString(figures.costMicros),
    totalCostMicros: figures.costMicros.toString(),
    costCurrencyUsd: 'USD',
    totalCostUsd: microsToDecimalString(figures.costUsdMicros),
    totalCostUsdMicros: figures.costUsdMicros.toString(),
    billedCost: '0.000000',
    requests: figures.requests,
    errors: 0,
    totalTokens: inputTokens + outputTokens,
    inputTokens,
    cachedReadTokens: 0,
    cacheWriteTokens: 0,
    outputTokens,
    reasoningTokens: 0,
    unpricedRequests: 0,
    estimatedRequests: 0,
  };
}

/** This month (November 2026, to the 26th) through a connection. */
export const monthUsage = (figures: Parameters<typeof usageAmounts>[0]): MonthUsage => ({ startDate: '2026-11-01', endDate: '2026-11-26', ...usageAmounts(figures) });

/** The last 30 days of a team (UTC) up to 2026-11-26, narrowed as `scope` says. */
export const usageTotals = (figures: Parameters<typeof usageAmounts>[0], scope: { teamId: string; groupId?: string; connectionId?: string }): UsageTotals => ({
  ...scope,
  startDate: '2026-10-28',
  endDate: '2026-11-26',
  timeZone: 'UTC',
  ...usageAmounts(figures),
  latencyP50Ms: null,
  latencyP95Ms: null,
});
