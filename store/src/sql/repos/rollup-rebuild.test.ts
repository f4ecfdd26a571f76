// A team's time-zone change regroups its daily rollups on the new zone's midnights, on
// PGlite and (when TEST_DATABASE_URL is set) PostgreSQL: a whole-hour zone across a DST
// change from the hour cells, a half-hour zone splitting its midnight's hour from the
// events, and past the events' retention the hour counting on the day it starts in; the
// days' sums equal the events per new local day, totals never change, a run repeated does nothing more.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestSqlStore, sqlBackends } from '../../testing/sql.ts';
import { usageEvent } from '../../testing/usage-events.ts';
import type { SqlStore } from '../connect.ts';
import { insertGroup } from './groups.ts';
import { insertIssuedKey } from './keys.ts';
import { updateTeam } from './team-members.ts';
import { insertTeam } from './teams.ts';
import { insertUsageEvents } from './usage.ts';
import { findRollupRebuild, REBUILD_DAYS_PER_RUN, rebuildNextRollupDays, reconcileRollups, requestRollupRebuild, rollupSeries, sumRollups } from './usage-rollups.ts';
import { insertUser } from './users.ts';

const WHOLE_RANGE = { from: new Date('2026-01-01T00:00:00Z'), to: new Date('2027-01-01T00:00:00Z') };
const DAYS = 10;

for (const backend of sqlBackends) {
  describe(`daily rollups after a time-zone change on ${backend}`, () => {
    let store: SqlStore;
    const owner = { teamId: randomUUID(), groupId: randomUUID(), keyId: randomUUID() };
    const userId = randomUUID();
    const otherKeyId = randomUUID();

    /** The requests per local day of the team's events in `zone`, as the day's UTC start. */
    async function eventsPerDay(zone: string) {
      const { rows } = await sql<{ day: Date; requests: string; cost: string }>`
        select date_trunc('day', occurred_at, ${zone}) as day, count(*) as requests, sum(cost_micros) as cost
        from usage_events where team_id = ${owner.teamId} group by 1 order by 1`.execute(store.db);
      return rows.map((row) => [new Date(row.day).toISOString(), BigInt(row.requests), BigInt(row.cost)]);
    }

    async function daySeries() {
      const series = await rollupSeries(store.db, { teamId: owner.teamId, ...WHOLE_RANGE, grain: 'day' });
      return series.map(({ bucketStart, sums }) => [bucketStart.toISOString(), sums.requests, sums.costMicros]);
    }

    async function totals(grain: 'hour' | 'day') {
      const sums = await sumRollups(store.db, { teamId: owner.teamId, ...WHOLE_RANGE, grain });
      return [sums.requests, sums.costMicros, sums.billedMicros, sums.inputTokens, sums.latencySumMs, sums.latencyHistogram];
    }

    /** Changes the zone as the team service does and runs the rebuild to its end, answering each run's progress. */
    async function changeZone(zone: string) {
      const requested = await store.db.transaction().execute(async (trx) => {
        await updateTeam(trx, owner.teamId, { timeZone: zone });
        return requestRollupRebuild(trx, owner.teamId, new Date());
      });
      expect(requested).toBeDefined();
      const runs: number[] = [];
      for (let progress = await rebuildNextRollupDays(store.db, owner.teamId); progress; progress = await rebuildNextRollupDays(store.db, owner.teamId)) {
        runs.push(progress.daysRebuilt);
      }
      return runs;
    }

    beforeAll(async () => {
      store = await openTestSqlStore(backend, new Date('2026-11-15T00:00:00Z'));
      const { db } = store;
      await insertUser(db, { id: userId, email: `rebuild-${backend}@example.com`, name: 'R', passwordHash: 'x' });
      await insertTeam(db, { id: owner.teamId, name: 'Rebuild', description: '', createdBy: userId });
      await insertGroup(db, { id: owner.groupId, teamId: owner.teamId, name: 'G', description: '', createdBy: userId });
      for (const id of [owner.keyId, otherKeyId]) {
        await insertIssuedKey(db, { id, team_id: owner.teamId, group_id: owner.groupId, connection_id: null, kind: 'optimised', name: id, key_hash: `h-${id}`, key_prefix: 'sg_live_x', created_by: userId });
      }
      // Ten UTC days from 28 October (New York leaves summer time on 1 November): hours
      // around New York's, Kolkata's (18:30 UTC) and Kathmandu's (18:15 UTC) midnights and midday.
      const times = ['03:50', '04:10', '04:55', '05:20', '12:00', '18:05', '18:20', '18:40', '18:59', '23:30'];
      const events = [];
      for (let day = 0; day < DAYS; day++) {
        const date = new Date(Date.UTC(2026, 9, 28 + day)).toISOString().slice(0, 10);
        for (const [index, time] of times.entries()) {
          events.push(
            usageEvent(owner, `${date}T${time}:00Z`, { cost_micros: BigInt(1_000 * (day + 1) + index), latency_ms: 50 * (index + 1), ...(index % 3 === 0 && { key_id: otherKeyId }) }),
          );
        }
      }
      expect(await insertUsageEvents(db, events)).toBe(events.length);
      expect(await eventsPerDay('UTC')).toHaveLength(DAYS);
    });
    afterAll(() => store?.close());

    it('regroups the days of a whole-hour zone from the hour cells, across its DST change, a week per run', async () => {
      const before = { hour: await totals('hour'), day: await totals('day') };
      expect(await changeZone('America/New_York')).toEqual([REBUILD_DAYS_PER_RUN, DAYS + 1]);
      expect(await daySeries()).toEqual(await eventsPerDay('America/New_York'));
      // 1 November starts at 04:00 UTC (summer time), 2 November at 05:00 UTC.
      expect((await daySeries()).map(([day]) => day)).toContain('2026-11-02T05:00:00.000Z');
      expect(await reconcileRollups(store.db, WHOLE_RANGE)).toEqual([]);
      expect({ hour: await totals('hour'), day: await totals('day') }).toEqual(before);
      expect(await findRollupRebuild(store.db, owner.teamId)).toMatchObject({ timeZone: 'America/New_York', days: DAYS + 1, daysRebuilt: DAYS + 1 });
      expect((await findRollupRebuild(store.db, owner.teamId))?.rebuiltAt).toBeInstanceOf(Date);
    });

    it('splits the hour a half-hour zone’s midnight falls in from its events', async () => {
      const before = await totals('day');
      await changeZone('Asia/Kolkata');
      expect(await daySeries()).toEqual(await eventsPerDay('Asia/Kolkata'));
      expect(await reconcileRollups(store.db, WHOLE_RANGE)).toEqual([]);
      expect(await totals('day')).toEqual(before);
      // Repeated, a finished rebuild does nothing.
      expect(await rebuildNextRollupDays(store.db, owner.teamId)).toBeUndefined();
      expect(await daySeries()).toEqual(await eventsPerDay('Asia/Kolkata'));
    });

    it('counts an hour whose events are gone on the day it starts in, and totals stay', async () => {
      const before = await totals('day');
      // Past retention: the first three UTC days' events are pruned, their rollups stay.
      await store.db.deleteFrom('usage_events').where('team_id', '=', owner.teamId).where('occurred_at', '<', new Date('2026-10-31T00:00:00Z')).execute();
      await changeZone('Asia/Kathmandu');
      expect(await totals('day')).toEqual(before);
      const series = new Map((await daySeries()).map(([day, requests]) => [day, requests]));
      // Kathmandu's days start at 18:15 UTC, inside the 18:00 UTC hour (18:05, 18:20, 18:40, 18:59): it is
      // split from the events where they remain, else counts whole on the day it starts in.
      expect(series.get('2026-10-27T18:15:00.000Z')).toBe(9n); // 28 Oct: 03:50 … 12:00 UTC (5) and the 18:00 hour whole (4)
      expect(series.get('2026-10-28T18:15:00.000Z')).toBe(10n); // 29 Oct: 23:30 the day before, 03:50 … 12:00 (5), the 18:00 hour whole (4)
      expect(series.get('2026-10-30T18:15:00.000Z')).toBe(7n); // 31 Oct: 23:30 the day before, 03:50 … 12:00 (5), 18:05 (its hour split from the events); the 30th's 18:00 hour is whole on the 30th
      const remaining = await eventsPerDay('Asia/Kathmandu');
      for (const [day, requests] of remaining.filter(([day]) => String(day) >= '2026-10-31')) expect([day, series.get(String(day))]).toEqual([day, requests]);
    });

    it('rebuilds nothing for a team without usage', async () => {
      const empty = randomUUID();
      await insertTeam(store.db, { id: empty, name: 'Empty', description: '', createdBy: userId });
      expect(await requestRollupRebuild(store.db, empty, new Date())).toBeUndefined();
      expect(await rebuildNextRollupDays(store.db, empty)).toBeUndefined();
    });
  });
}
