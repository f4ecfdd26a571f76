// Usage read models for the console: tokens and cost of a team, narrowed to a group or
// a connection, over a date range (yyyy-mm-dd in UTC, endDate inclusive; by default
// the last 30 days up to today); and a team's overview: how far its setup has got
// (connections, groups, live keys, first request) and this month's usage by day.
import { microsToDecimalString } from '@spendgate/core';
import { firstUsageAt, listConnections, listGroupsForUser, listLiveKeys, type SqlStore, sumDailyUsage, sumUsage, sumUsageByConnection } from '@spendgate/store';
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

    /**
     * Requests and cost (micro-units) this calendar month (UTC) up to now of every
     * connection of the given teams, in one query: what the connection list shows beside
     * each. `of(id)` answers zeros for a connection without requests.
     */
    async monthByConnection(teamIds: string[]) {
      const today = isoDay(now());
      const startDate = `${today.slice(0, 7)}-01`;
      const sums = await sumUsageByConnection(deps.sql.db, {
        teamIds,
        from: new Date(`${startDate}T00:00:00Z`),
        to: new Date(Date.parse(`${today}T00:00:00Z`) + DAY_MS),
      });
      return {
        of: (connectionId: string) => {
          const sum = sums.get(connectionId);
          return { startDate, requests: sum?.requests ?? 0, currency: 'USD', totalCostMicros: (sum?.costMicros ?? 0n).toString() };
        },
      };
    },

    /**
     * A team's first steps and this month so far, for the dashboard's first screen. Groups
     * and keys are those the caller can see (a team member sees only the groups they
     * belong to); connections and usage are the team's.
     */
    async teamOverview(userId: string, teamId: string) {
      await deps.access.team(teamId, userId, 'connection.view');
      const { db } = deps.sql;
      const today = isoDay(now());
      const month = { startDate: `${today.slice(0, 7)}-01`, endDate: today };
      const [connections, groups, firstRequest, usage, days] = await Promise.all([
        listConnections(db, [teamId]),
        listGroupsForUser(db, userId, { teamId }),
        firstUsageAt(db, teamId),
        totals({ teamId }, month),
        sumDailyUsage(db, { teamId, from: new Date(`${month.startDate}T00:00:00Z`), to: new Date(Date.parse(`${today}T00:00:00Z`) + DAY_MS) }),
      ]);
      const keys = (await Promise.all(groups.map((group) => listLiveKeys(db, teamId, { groupId: group.id })))).flat();
      const byDay = new Map(days.map((day) => [day.day, day]));
      const daily = [];
      for (let at = Date.parse(`${month.startDate}T00:00:00Z`); at <= Date.parse(`${today}T00:00:00Z`); at += DAY_MS) {
        const date = isoDay(new Date(at));
        const day = byDay.get(date);
        daily.push({ date, requests: day?.requests ?? 0, totalCostMicros: (day?.costMicros ?? 0n).toString() });
      }
      return {
        teamId,
        setup: { connections: connections.length, groups: groups.length, keys: keys.length, firstRequestAt: firstRequest ?? null },
        thisMonth: usage,
        daily,
      };
    },

    async groupUsage(userId: string, query: { groupId: string; startDate: string; endDate: string }) {
      const group = await deps.access.group(query.groupId, userId, 'group.view');
      return totals({ teamId: group.team_id, groupId: group.id }, query);
    },
  };
}

export type UsageService = ReturnType<typeof createUsageService>;
