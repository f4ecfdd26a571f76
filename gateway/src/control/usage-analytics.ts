/**
 * The usage calls of spec §7, read from the rollups (store's usage-rollups.ts), so they
 * cost the same at any number of events. Every amount is in the team's currency (GBP:
 * what the usage counted against its budgets) with the provider's list price (USD)
 * beside it, as decimal strings. Dates are the team's calendar days: startDate/endDate
 * (yyyy-mm-dd, endDate included; by default the last 30 days up to today), the plan's
 * look-back enforced. A whole team's usage is for team admins; a group's for whoever may
 * see the group.
 */
import {
  ForbiddenError,
  latencyPercentile,
  localDay,
  localDayStart,
  microsToDecimalString,
  NotFoundError,
  ValidationError,
} from '@spendgate/core';
import {
  groupNames,
  type RollupDimension,
  type RollupFilter,
  type RollupSums,
  rollupDistribution,
  rollupSeries,
  type SqlStore,
  sumRollups,
} from '@spendgate/store';
import type { Access } from './access.ts';
import type { PlanService } from './plans.ts';

const DAY_MS = 86_400_000;
const DEFAULT_RANGE_DAYS = 30;
/** Hourly series cover at most this many days (a week of hours is 168 points). */
const MAX_HOURLY_DAYS = 7;

export interface UsageQuery {
  teamId?: string | undefined;
  groupId?: string | undefined;
  keyId?: string | undefined;
  connectionId?: string | undefined;
  model?: string | undefined;
  provider?: string | undefined;
  startDate?: string | undefined;
  endDate?: string | undefined;
  granularity?: 'day' | 'hour' | undefined;
}

const addDays = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
const daysBetween = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);

/** The amounts and counts every answer shares, from some rollup sums. */
function totalsOf(sums: RollupSums) {
  const totalTokens = sums.inputTokens + sums.cachedReadTokens + sums.cacheWriteTokens + sums.outputTokens;
  return {
    currency: 'GBP' as const,
    totalCost: microsToDecimalString(sums.budgetSpendMicros),
    totalCostMicros: sums.budgetSpendMicros.toString(),
    costCurrencyUsd: 'USD' as const,
    totalCostUsd: microsToDecimalString(sums.costMicros),
    totalCostUsdMicros: sums.costMicros.toString(),
    billedCost: microsToDecimalString(sums.billedMicros),
    requests: Number(sums.requests),
    errors: Number(sums.errors),
    totalTokens: Number(totalTokens),
    inputTokens: Number(sums.inputTokens),
    cachedReadTokens: Number(sums.cachedReadTokens),
    cacheWriteTokens: Number(sums.cacheWriteTokens),
    outputTokens: Number(sums.outputTokens),
    reasoningTokens: Number(sums.reasoningTokens),
    unpricedRequests: Number(sums.unpricedRequests),
    estimatedRequests: Number(sums.estimatedRequests),
  };
}

export interface UsageDeps {
  sql: SqlStore;
  access: Access;
  plans: PlanService;
  now?: () => Date;
}

/**
 * The team a usage query reads, checked for the caller: a team's whole usage for its
 * admins, a group's for who may see it, a key or a connection only of that team (and a
 * key of that group). Another team's object answers 404.
 */
async function callersTeam(deps: UsageDeps, userId: string, query: UsageQuery): Promise<string> {
  const { db } = deps.sql;
  let teamId = query.teamId;
  if (query.groupId !== undefined) {
    const group = await deps.access.group(query.groupId, userId, 'group.view');
    if (teamId !== undefined && teamId !== group.team_id) throw new NotFoundError('Synthetic group');
    teamId = group.team_id;
  } else if (teamId !== undefined) {
    await deps.access.team(teamId, userId, 'team.usage.view');
  } else {
    throw new ValidationError('teamId', 'teamId or groupId is required');
  }
  if (query.keyId !== undefined) {
    let key = db.selectFrom('issued_keys').select('id').where('id', '=', query.keyId).where('team_id', '=', teamId);
    if (query.groupId !== undefined) key = key.where('group_id', '=', query.groupId);
    if ((await key.executeTakeFirst()) === undefined) throw new NotFoundError('Key');
  }
  if (query.connectionId !== undefined) {
    const connection = await db.selectFrom('provider_connections').select('id').where('id', '=', query.connectionId).where('team_id', '=', teamId).executeTakeFirst();
    if (connection === undefined) throw new NotFoundError('Provider connection');
  }
  return teamId;
}

/**
 * The date range in force for a team already checked for the caller (defaults, the
 * plan's look-back: a 403 naming it), its time zone, and the rollup filter.
 */
async function teamScope(deps: UsageDeps, teamId: string, query: UsageQuery) {
  const { db } = deps.sql;
  const now = deps.now ?? (() => new Date());
  const team = await db.selectFrom('teams').select(['time_zone']).where('id', '=', teamId).executeTakeFirstOrThrow();
  const timeZone = team.time_zone;
  const today = localDay(now(), timeZone);
  const { terms } = await deps.plans.teamTerms(teamId);
  // The first day the plan shows; a range left to its default starts there at the earliest.
  const earliest = terms.lookBackDays === null ? null : addDays(today, 1 - terms.lookBackDays);
  const endDate = query.endDate ?? today;
  const defaultStart = addDays(endDate, 1 - DEFAULT_RANGE_DAYS);
  const startDate = query.startDate ?? (earliest !== null && earliest > defaultStart ? earliest : defaultStart);
  if (startDate > endDate) throw new ValidationError('endDate', 'endDate must not be before startDate');
  if (earliest !== null && startDate < earliest) {
    throw new ForbiddenError(`The ${terms.name} plan shows usage of the last ${terms.lookBackDays} days: choose a startDate on or after ${earliest}`);
  }
  const granularity = query.granularity ?? 'day';
  if (granularity === 'hour' && daysBetween(startDate, endDate) + 1 > MAX_HOURLY_DAYS) {
    throw new ValidationError('granularity', `granularity=hour covers at most ${MAX_HOURLY_DAYS} days`);
  }
  const filter = (grain: 'day' | 'hour', from = startDate, to = endDate): RollupFilter => ({
    teamId,
    grain,
    from: localDayStart(from, timeZone),
    to: localDayStart(addDays(to, 1), timeZone),
    groupId: query.groupId,
    keyId: query.keyId,
    connectionId: query.connectionId,
    model: query.model,
    provider: query.provider,
  });
  return { teamId, timeZone, today, earliest, startDate, endDate, granularity, filter };
}

/**
 * What a usage query reads: the team, checked for the caller, its time zone, and the
 * date range in force (defaults, the plan's look-back), with the rollup filter.
 */
export async function usageScope(deps: UsageDeps, userId: string, query: UsageQuery) {
  return teamScope(deps, await callersTeam(deps, userId, query), query);
}

export type UsageScope = Awaited<ReturnType<typeof usageScope>>;

export function createUsageAnalytics(deps: UsageDeps) {
  const { db } = deps.sql;
  const scopeOf = (userId: string, query: UsageQuery) => usageScope(deps, userId, query);

  /** The range and filters an answer was computed for. */
  const echo = (scope: UsageScope, query: UsageQuery) => ({
    teamId: scope.teamId,
    ...(query.groupId ? { groupId: query.groupId } : {}),
    ...(query.keyId ? { keyId: query.keyId } : {}),
    ...(query.connectionId ? { connectionId: query.connectionId } : {}),
    ...(query.model ? { model: query.model } : {}),
    ...(query.provider ? { provider: query.provider } : {}),
    startDate: scope.startDate,
    endDate: scope.endDate,
    timeZone: scope.timeZone,
  });

  /**
   * Names for a distribution's keys: groups, keys and connections by their names; no
   * connection is the operator's upstream, no group or key the AI advisor's wording.
   */
  async function labelsOf(teamId: string, by: RollupDimension, values: (string | null)[]): Promise<Map<string | null, string>> {
    const ids = values.filter((value): value is string => value !== null);
    const none = by === 'key' || by === 'group' ? 'AI advisor wording' : 'Spendgate-managed';
    const labels = new Map<string | null, string>(values.map((value) => [value, value ?? none]));
    if (ids.length === 0) return labels;
    if (by === 'group') {
      for (const [id, name] of await groupNames(db, teamId, ids)) labels.set(id, name);
    } else if (by === 'key') {
      for (const row of await db.selectFrom('issued_keys').select(['id', 'name', 'key_prefix']).where('team_id', '=', teamId).where('id', 'in', ids).execute()) {
        labels.set(row.id, `${row.name} (${row.key_prefix}…)`);
      }
    } else if (by === 'connection') {
      for (const row of await db.selectFrom('provider_connections').select(['id', 'name']).where('team_id', '=', teamId).where('id', 'in', ids).execute()) labels.set(row.id, row.name);
    }
    return labels;
  }

  /** A scope's totals: tokens by category, requests, cost in GBP and USD, latency percentiles. */
  async function totalsIn(reader: SqlStore['db'], scope: UsageScope, query: UsageQuery, range: { startDate: string; endDate: string } = scope) {
    const { startDate, endDate } = range;
    const sums = await sumRollups(reader, scope.filter('day', startDate, endDate));
    return {
      ...echo(scope, query),
      startDate,
      endDate,
      ...totalsOf(sums),
      latencyP50Ms: latencyPercentile(sums.latencyHistogram, 0.5, sums.latencyMaxMs) ?? null,
      latencyP95Ms: latencyPercentile(sums.latencyHistogram, 0.95, sums.latencyMaxMs) ?? null,
    };
  }

  return {
    /** Totals over the range: tokens by category, requests, cost in GBP and USD, latency percentiles. */
    async summary(userId: string, query: UsageQuery) {
      return totalsIn(await deps.sql.readDb(userId), await scopeOf(userId, query), query);
    },

    /** The default range's totals of a group the caller was already checked for (a group's view). */
    async groupTotals(group: { teamId: string; groupId: string }) {
      const query = { groupId: group.groupId };
      return totalsIn(db, await teamScope(deps, group.teamId, query), query);
    },

    /**
     * A team's totals this month so far and its spend per day (every day, zeros
     * included), for a team already checked for its admin.
     */
    async teamMonth(teamId: string) {
      const scope = await teamScope(deps, teamId, {});
      const month = thisMonthOf(scope);
      const [totals, days] = await Promise.all([totalsIn(db, scope, { teamId }, month), rollupSeries(db, scope.filter('day', month.startDate, month.endDate))]);
      const byStart = new Map(days.map((day) => [day.bucketStart.getTime(), day.sums]));
      const daily = [];
      for (let day = month.startDate; day <= month.endDate; day = addDays(day, 1)) {
        const sums = byStart.get(localDayStart(day, scope.timeZone).getTime());
        daily.push({ date: day, requests: Number(sums?.requests ?? 0n), totalCostMicros: (sums?.budgetSpendMicros ?? 0n).toString() });
      }
      return { totals, daily };
    },

    /**
     * This month's totals through each connection of the given teams (already checked for
     * their admin), one rollup read per team; `of` answers zeros for a connection without
     * requests.
     */
    async monthByConnection(teamIds: string[]) {
      const byConnection = new Map<string, ReturnType<typeof totalsOf> & { startDate: string; endDate: string }>();
      const months = new Map<string, { startDate: string; endDate: string }>();
      await Promise.all(
        teamIds.map(async (teamId) => {
          const scope = await teamScope(deps, teamId, {});
          const month = thisMonthOf(scope);
          months.set(teamId, month);
          for (const { value, sums } of await rollupDistribution(db, scope.filter('day', month.startDate, month.endDate), 'connection')) {
            if (value !== null) byConnection.set(value, { ...month, ...totalsOf(sums) });
          }
        }),
      );
      return {
        of: (connection: { id: string; teamId: string }) => {
          const month = months.get(connection.teamId);
          if (month === undefined) return null;
          return byConnection.get(connection.id) ?? { ...month, ...totalsOf(NO_USAGE) };
        },
      };
    },

    /** Cost, requests and tokens per day (or per hour), every bucket of the range present. */
    async series(userId: string, query: UsageQuery) {
      const scope = await scopeOf(userId, query);
      const reader = await deps.sql.readDb(userId);
      const grain = scope.granularity;
      const rows = await rollupSeries(reader, scope.filter(grain));
      const byStart = new Map(rows.map((row) => [row.bucketStart.getTime(), row.sums]));
      const { from, to } = scope.filter(grain);
      const series = [];
      for (let day = scope.startDate; day <= scope.endDate && grain === 'day'; day = addDays(day, 1)) {
        series.push({ date: day, ...pointOf(byStart.get(localDayStart(day, scope.timeZone).getTime())) });
      }
      for (let at = from.getTime(); at < to.getTime() && grain === 'hour'; at += 3_600_000) {
        series.push({ date: new Date(at).toISOString(), ...pointOf(byStart.get(at)) });
      }
      return { ...echo(scope, query), granularity: grain, ...totalsOf(await sumRollups(reader, scope.filter(grain))), series };
    },

    /** This month day by day, cumulative, beside last month's (the team's calendar). */
    async monthToDate(userId: string, query: UsageQuery) {
      const current = await scopeOf(userId, { ...query, startDate: undefined, endDate: undefined });
      const visible = (day: string) => current.earliest === null || day >= current.earliest;
      const monthStart = `${current.today.slice(0, 7)}-01`;
      const lastMonthStart = `${addDays(monthStart, -1).slice(0, 7)}-01`;
      const lastMonthEnd = addDays(monthStart, -1);
      const cumulative = async (first: string, last: string) => {
        const rows = await rollupSeries(await deps.sql.readDb(userId), current.filter('day', first, last));
        const byStart = new Map(rows.map((row) => [row.bucketStart.getTime(), row.sums.budgetSpendMicros]));
        const days = [];
        let total = 0n;
        for (let day = first; day <= last; day = addDays(day, 1)) {
          const spent = byStart.get(localDayStart(day, current.timeZone).getTime()) ?? 0n;
          total += spent;
          days.push({ date: day, cost: microsToDecimalString(spent), cumulativeCost: microsToDecimalString(total) });
        }
        return { days, totalMicros: total };
      };
      // A plan's look-back hides the days before it: this month from its first visible day,
      // last month only when the look-back reaches its first day.
      const firstShown = thisMonthOf(current).startDate;
      const thisMonth = await cumulative(firstShown, current.today);
      const lastMonth = visible(lastMonthStart) ? await cumulative(lastMonthStart, lastMonthEnd) : undefined;
      return {
        ...echo(current, query),
        startDate: firstShown,
        endDate: current.today,
        currency: 'GBP' as const,
        thisMonth: { total: microsToDecimalString(thisMonth.totalMicros), days: thisMonth.days },
        lastMonth: lastMonth === undefined ? null : { total: microsToDecimalString(lastMonth.totalMicros), days: lastMonth.days },
      };
    },

    /** The range's usage split by model, provider, key, group or connection, largest cost first. */
    async distribution(userId: string, query: UsageQuery & { by: RollupDimension }) {
      const scope = await scopeOf(userId, query);
      const rows = await rollupDistribution(await deps.sql.readDb(userId), scope.filter('day'), query.by);
      const total = rows.reduce((sum, row) => sum + row.sums.budgetSpendMicros, 0n);
      const requests = rows.reduce((sum, row) => sum + row.sums.requests, 0n);
      const labels = await labelsOf(scope.teamId, query.by, rows.map((row) => row.value));
      return {
        ...echo(scope, query),
        by: query.by,
        currency: 'GBP' as const,
        totalCost: microsToDecimalString(total),
        items: rows.map(({ value, sums }) => ({
          key: value ?? 'none',
          label: labels.get(value)!,
          cost: microsToDecimalString(sums.budgetSpendMicros),
          costUsd: microsToDecimalString(sums.costMicros),
          requests: Number(sums.requests),
          totalTokens: Number(sums.inputTokens + sums.cachedReadTokens + sums.cacheWriteTokens + sums.outputTokens),
          // The item's part of the range's cost (of its requests when nothing cost anything), 0–1.
          share: total > 0n ? Number((sums.budgetSpendMicros * 1_000_000n) / total) / 1_000_000 : requests > 0n ? Number((sums.requests * 1_000_000n) / requests) / 1_000_000 : 0,
          unpricedRequests: Number(sums.unpricedRequests),
        })),
      };
    },
  };
}

/** One point of a series: cost in GBP and USD, requests and tokens (zero when nothing ran). */
function pointOf(sums: RollupSums | undefined) {
  return {
    cost: microsToDecimalString(sums?.budgetSpendMicros ?? 0n),
    costUsd: microsToDecimalString(sums?.costMicros ?? 0n),
    requests: Number(sums?.requests ?? 0n),
    totalTokens: Number(sums === undefined ? 0n : sums.inputTokens + sums.cachedReadTokens + sums.cacheWriteTokens + sums.outputTokens),
  };
}

/** Sums of no usage at all. */
const NO_USAGE: RollupSums = {
  requests: 0n,
  errors: 0n,
  estimatedRequests: 0n,
  unpricedRequests: 0n,
  inputTokens: 0n,
  cachedReadTokens: 0n,
  cacheWriteTokens: 0n,
  outputTokens: 0n,
  reasoningTokens: 0n,
  costMicros: 0n,
  billedMicros: 0n,
  budgetSpendMicros: 0n,
  latencySumMs: 0n,
  latencyMaxMs: 0,
  latencyHistogram: [],
};

/** This month so far in a scope (the team's calendar), from its first day the plan's look-back shows. */
function thisMonthOf(scope: UsageScope) {
  const monthStart = `${scope.today.slice(0, 7)}-01`;
  return { startDate: scope.earliest !== null && scope.earliest > monthStart ? scope.earliest : monthStart, endDate: scope.today };
}

export type UsageAnalytics = ReturnType<typeof createUsageAnalytics>;
