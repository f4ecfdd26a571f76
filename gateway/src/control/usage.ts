// A team's overview for the console's first screen: how far its setup has got
// (connections, groups, live keys, first request), how far a demo team's sample usage has
// been recorded and, for its admins, this month's usage from the rollups
// (usage-analytics.ts), in total and per day of the team's calendar.
import { decide } from '@spendgate/core';
import { firstUsageAt, listConnections, listGroupsForUser, listLiveKeys, type SqlStore } from '@spendgate/store';
import type { Access } from './access.ts';
import { demoStatus } from './demo/index.ts';
import type { UsageAnalytics } from './usage-analytics.ts';

export function createUsageService(deps: { sql: SqlStore; access: Access; analytics: UsageAnalytics }) {
  return {
    /**
     * Groups and keys are those the caller can see (a team member sees only the groups
     * they belong to); connections are the team's. This month's usage is the whole
     * team's, so only its admins get it (null, and no days, for a member).
     */
    async teamOverview(userId: string, teamId: string) {
      const teamRole = await deps.access.team(teamId, userId, 'connection.view');
      const { db } = deps.sql;
      const [connections, groups, firstRequest, demo, month] = await Promise.all([
        listConnections(db, [teamId]),
        listGroupsForUser(db, userId, { teamId }),
        firstUsageAt(db, teamId),
        demoStatus(db, teamId),
        decide('team.usage.view', { teamRole }) === 'allowed' ? deps.analytics.teamMonth(teamId) : undefined,
      ]);
      const keys = (await Promise.all(groups.map((group) => listLiveKeys(db, teamId, { groupId: group.id })))).flat();
      return {
        teamId,
        setup: { connections: connections.length, groups: groups.length, keys: keys.length, firstRequestAt: firstRequest ?? null },
        demo,
        thisMonth: month?.totals ?? null,
        daily: month?.daily ?? [],
      };
    },

    /** `userId` changed something: their usage reads go to the primary for a while (the fresh-read rule). */
    wrote(userId: string): Promise<void> {
      return deps.sql.wrote(userId);
    },

    /**
     * How far behind the usage figures `userId` reads may be: 0 when they read from the
     * primary (no replica serves, or they just changed something), else the largest lag
     * of the replicas serving reads, as their reads go to each in turn (store's read-replicas.ts).
     */
    async freshness(userId: string) {
      const replicas = deps.sql.replicaLag();
      const serving = replicas.filter((replica) => replica.serving).map((replica) => replica.lagSeconds ?? 0);
      const onPrimary = serving.length === 0 || (await deps.sql.wroteRecently(userId));
      return {
        behindSeconds: onPrimary ? 0 : Math.max(...serving),
        replicas: replicas.map(({ lagSeconds, serving }) => ({ lagSeconds: lagSeconds ?? null, serving })),
      };
    },
  };
}

export type UsageService = ReturnType<typeof createUsageService>;
