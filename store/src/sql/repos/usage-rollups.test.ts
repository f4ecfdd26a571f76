// Rollups agree with the usage events they sum, on PGlite and (when TEST_DATABASE_URL is
// set) PostgreSQL: kept by the meter's statement, rebuilt idempotently, repaired by
// reconciliation, with days in the team's time zone and hours in UTC.
import { randomUUID } from 'node:crypto';
import { LATENCY_BUCKETS, latencyBucket } from '@spendgate/core';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestSqlStore, sqlBackends } from '../../testing/sql.ts';
import { usageEvent } from '../../testing/usage-events.ts';
import type { SqlStore } from '../connect.ts';
import type { NewUsageEvent } from '../schema.ts';
import { insertGroup } from './groups.ts';
import { insertIssuedKey } from './keys.ts';
import { insertTeam } from './teams.ts';
import { insertUsageEvents, sumBudgetSpend } from './usage.ts';
import { recomputeRollups, reconcileRollups, rollupDistribution, sumRollups } from './usage-rollups.ts';
import { insertUser } from './users.ts';

const WHOLE_RANGE = { from: new Date('2026-01-01T00:00:00Z'), to: new Date('2027-01-01T00:00:00Z') };

for (const backend of sqlBackends) {
  describe(`usage rollups on ${backend}`, () => {
    let store: SqlStore;
    const ids = { user: randomUUID(), team: randomUUID(), group: randomUUID(), keyA: randomUUID(), keyB: randomUUID() };
    function event(occurredAt: string, overrides: Partial<NewUsageEvent> = {}): NewUsageEvent {
      return usageEvent({ teamId: ids.team, groupId: ids.group, keyId: ids.keyA }, occurredAt, {
        cached_read_tokens: 200n,
        output_tokens: 500n,
        reasoning_tokens: 40n,
        cost_micros: 7_500n,
        latency_ms: 120,
        key_kind: 'byok',
        billed_micros: 0n,
        budget_spend_micros: 5_900n,
        ...overrides,
      });
    }

    async function cells(grain: 'hour' | 'day') {
      return store.db
        .selectFrom('usage_rollups')
        .selectAll()
        .where('team_id', '=', ids.team)
        .where('grain', '=', grain)
        .orderBy('bucket_start')
        .orderBy(sql`key_id = ${ids.keyB}`)
        .execute();
    }

    async function rawTotals() {
      const row = await store.db
        .selectFrom('usage_events')
        .select([
          sql<string>`count(*)`.as('requests'),
          sql<string>`sum(input_tokens)`.as('input'),
          sql<string>`coalesce(sum(cost_micros), 0)`.as('cost'),
          sql<string>`sum(latency_ms)`.as('latency'),
        ])
        .where('team_id', '=', ids.team)
        .executeTakeFirstOrThrow();
      return { requests: BigInt(row.requests), input: BigInt(row.input), cost: BigInt(row.cost), latency: BigInt(row.latency) };
    }

    async function rollupTotals(grain: 'hour' | 'day') {
      const all = await cells(grain);
      return {
        requests: all.reduce((sum, cell) => sum + BigInt(cell.requests), 0n),
        input: all.reduce((sum, cell) => sum + BigInt(cell.input_tokens), 0n),
        cost: all.reduce((sum, cell) => sum + BigInt(cell.cost_micros), 0n),
        latency: all.reduce((sum, cell) => sum + BigInt(cell.latency_sum_ms), 0n),
      };
    }

    beforeAll(async () => {
      store = await openTestSqlStore(backend, new Date('2026-11-15T00:00:00Z'));
      const { db } = store;
      await insertUser(db, { id: ids.user, email: `rollups-${backend}@example.com`, name: 'R', passwordHash: 'x' });
      await insertTeam(db, { id: ids.team, name: 'Rollups', description: '', createdBy: ids.user });
      // Half-hour offset: a day there starts at 18:30 UTC, never on a UTC hour.
      await db.updateTable('teams').set({ time_zone: 'Asia/Kolkata' }).where('id', '=', ids.team).execute();
      await insertGroup(db, { id: ids.group, teamId: ids.team, name: 'G', description: '', createdBy: ids.user });
      for (const id of [ids.keyA, ids.keyB]) {
        await insertIssuedKey(db, { id, team_id: ids.team, group_id: ids.group, connection_id: null, kind: 'byok', name: id, key_hash: `h-${id}`, key_prefix: 'sg_live_x', created_by: ids.user });
      }
    });
    afterAll(() => store?.close());

    it('adds each recorded event to its UTC hour and its day in the team’s time zone, once', async () => {
      const batch = [
        event('2026-11-20T18:10:00Z'),
        event('2026-11-20T18:40:00Z', { latency_ms: 4_000, status_code: 429, cost_micros: null, billed_micros: null, budget_spend_micros: null }),
        event('2026-11-20T18:50:00Z', { key_id: ids.keyB, estimated: true, cost_micros: 9_007_199_254_740_993n }),
      ];
      expect(await insertUsageEvents(store.db, batch)).toBe(3);
      expect(await insertUsageEvents(store.db, batch)).toBe(0); // redelivered: counted once

      const hours = await cells('hour');
      expect(hours.map((cell) => [new Date(cell.bucket_start).toISOString(), cell.key_id === ids.keyA ? 'A' : 'B', Number(cell.requests)])).toEqual([
        ['2026-11-20T18:00:00.000Z', 'A', 2],
        ['2026-11-20T18:00:00.000Z', 'B', 1],
      ]);
      const days = await cells('day');
      // 18:10 UTC is 23:40 on the 20th in Kolkata; 18:40 and 18:50 are past midnight, the 21st.
      expect(days.map((cell) => [new Date(cell.bucket_start).toISOString(), cell.key_id === ids.keyA ? 'A' : 'B', Number(cell.requests)])).toEqual([
        ['2026-11-19T18:30:00.000Z', 'A', 1],
        ['2026-11-20T18:30:00.000Z', 'A', 1],
        ['2026-11-20T18:30:00.000Z', 'B', 1],
      ]);

      const hourA = hours[0]!;
      expect(hourA).toMatchObject({ errors: 1n, unpriced_requests: 1n, estimated_requests: 0n, latency_max_ms: 4_000 });
      expect(BigInt(hourA.cost_micros)).toBe(7_500n);
      expect(BigInt(hourA.budget_spend_micros)).toBe(5_900n);
      expect(BigInt(hourA.latency_sum_ms)).toBe(4_120n);
      const histogram = new Array<bigint>(LATENCY_BUCKETS).fill(0n);
      histogram[latencyBucket(120)] = 1n;
      histogram[latencyBucket(4_000)] = 1n;
      expect(hourA.latency_histogram.map((count) => BigInt(String(count)))).toEqual(histogram);
      expect(BigInt(hours[1]!.cost_micros)).toBe(9_007_199_254_740_993n);
      expect(hours[1]).toMatchObject({ estimated_requests: 1n });
    });

    it('merges later batches and late, out-of-order events into the cells of their own hour', async () => {
      await insertUsageEvents(store.db, [event('2026-11-20T18:59:59Z', { latency_ms: 30 }), event('2026-11-20T19:05:00Z')]);
      await insertUsageEvents(store.db, [event('2026-11-20T18:00:00Z')]); // late: an hour already summed
      const hourA = (await cells('hour')).find((cell) => new Date(cell.bucket_start).toISOString() === '2026-11-20T18:00:00.000Z' && cell.key_id === ids.keyA)!;
      expect(Number(hourA.requests)).toBe(4);
      expect(hourA.latency_histogram.map(Number).reduce((sum, count) => sum + count, 0)).toBe(4);
      expect(hourA.latency_max_ms).toBe(4_000);
      expect(await rollupTotals('hour')).toEqual(await rawTotals());
      expect(await rollupTotals('day')).toEqual(await rawTotals());
      expect(await reconcileRollups(store.db, WHOLE_RANGE)).toEqual([]);
    });

    it('rebuilds any window from the events, and rebuilding again changes nothing', async () => {
      const before = { hours: await cells('hour'), days: await cells('day') };
      await store.db.deleteFrom('usage_rollups').where('team_id', '=', ids.team).execute();
      await recomputeRollups(store.db, { teamId: ids.team, from: new Date('2026-11-20T19:00:00Z'), to: new Date('2026-11-20T19:00:01Z') });
      // One instant rebuilds its whole local day (the 21st from 18:30 UTC on the 20th) and the UTC hours it spans.
      expect((await cells('day')).map((cell) => new Date(cell.bucket_start).toISOString())).toEqual(['2026-11-20T18:30:00.000Z', '2026-11-20T18:30:00.000Z']);
      await recomputeRollups(store.db, { teamId: ids.team, ...WHOLE_RANGE });
      await recomputeRollups(store.db, { teamId: ids.team, ...WHOLE_RANGE });
      expect({ hours: await cells('hour'), days: await cells('day') }).toEqual(before);
    });

    it('finds cells that drifted from the events, reports them and repairs their days', async () => {
      await store.db
        .updateTable('usage_rollups')
        .set({ requests: sql`requests + 1` })
        .where('team_id', '=', ids.team)
        .where('grain', '=', 'hour')
        .where('key_id', '=', ids.keyB)
        .execute();
      await store.db.deleteFrom('usage_rollups').where('team_id', '=', ids.team).where('grain', '=', 'day').where('bucket_start', '=', new Date('2026-11-19T18:30:00Z')).execute();

      const differences = await reconcileRollups(store.db, WHOLE_RANGE);
      expect(differences.map((difference) => [difference.grain, difference.bucketStart.toISOString()])).toEqual([
        ['day', '2026-11-19T18:30:00.000Z'],
        ['hour', '2026-11-20T18:00:00.000Z'],
      ]);
      expect(differences.every((difference) => difference.teamId === ids.team)).toBe(true);
      expect(await reconcileRollups(store.db, WHOLE_RANGE)).toEqual([]);
      expect(await rollupTotals('day')).toEqual(await rawTotals());
    });

    it('loses and doubles nothing when events arrive while a window is rebuilt', async () => {
      const writes = Array.from({ length: 20 }, (_, index) =>
        insertUsageEvents(store.db, [event(`2026-11-21T0${index % 10}:15:00Z`), event(`2026-11-21T0${index % 10}:45:00Z`, { key_id: ids.keyB })]),
      );
      const rebuilds = Array.from({ length: 4 }, () => recomputeRollups(store.db, { teamId: ids.team, ...WHOLE_RANGE }));
      await Promise.all([...writes, ...rebuilds]);
      expect(await reconcileRollups(store.db, WHOLE_RANGE)).toEqual([]);
      expect((await rollupTotals('hour')).requests).toBe((await rawTotals()).requests);
    });

    it('narrows its reads to a connection, and each connection’s sums equal its events', async () => {
      const [connectionA, connectionB] = [randomUUID(), randomUUID()];
      await insertUsageEvents(store.db, [
        event('2026-12-02T10:00:00Z', { connection_id: connectionA, budget_spend_micros: 9_007_199_254_740_993n }),
        event('2026-12-02T11:00:00Z', { connection_id: connectionA, cost_micros: null, budget_spend_micros: null }),
        event('2026-12-02T12:00:00Z', { connection_id: connectionB, key_id: ids.keyB }),
      ]);
      const december = { teamId: ids.team, from: new Date('2026-12-01T00:00:00Z'), to: new Date('2027-01-01T00:00:00Z') };
      const { rows } = await sql<{ connection_id: string; requests: string; cost: string; spend: string; unpriced: string }>`
        select connection_id, count(*) as requests, coalesce(sum(cost_micros), 0) as cost, coalesce(sum(budget_spend_micros), 0) as spend,
          count(*) filter (where cost_micros is null) as unpriced
        from usage_events where team_id = ${ids.team} and occurred_at >= ${december.from} and connection_id is not null group by connection_id`.execute(store.db);
      expect(rows).toHaveLength(2);
      for (const grain of ['hour', 'day'] as const) {
        for (const raw of rows) {
          const sums = await sumRollups(store.db, { ...december, grain, connectionId: raw.connection_id });
          expect([sums.requests, sums.costMicros, sums.budgetSpendMicros, sums.unpricedRequests]).toEqual([BigInt(raw.requests), BigInt(raw.cost), BigInt(raw.spend), BigInt(raw.unpriced)]);
        }
        // With the key too: connection B's one request is key B's.
        expect((await sumRollups(store.db, { ...december, grain, connectionId: connectionB, keyId: ids.keyA })).requests).toBe(0n);
        const byConnection = await rollupDistribution(store.db, { ...december, grain }, 'connection');
        expect(byConnection.map(({ value, sums }) => [value, sums.requests])).toEqual([
          [connectionA, 2n],
          [connectionB, 1n],
        ]);
      }
      // Another team's filter finds nothing of these.
      expect((await sumRollups(store.db, { ...december, teamId: randomUUID(), grain: 'day', connectionId: connectionA })).requests).toBe(0n);
    });

    it('gives a budget’s spend in any window exactly as the events sum it: whole hours from the cells, part-hours from the events', async () => {
      // January: a spread of events, some on a UTC hour's edge, one unpriced, a few of key B.
      const times = ['2027-01-05T00:00:00Z', '2027-01-05T18:29:59.999Z', '2027-01-05T18:30:00Z', '2027-01-05T18:45:00Z', '2027-01-05T19:00:00Z', '2027-01-06T07:59:59Z', '2027-01-06T18:31:00Z'];
      await insertUsageEvents(
        store.db,
        times.map((at, index) => event(at, { key_id: index % 3 === 0 ? ids.keyB : ids.keyA, budget_spend_micros: index === 4 ? null : BigInt(1_000_003 * (index + 1)) })),
      );
      /** The old reading: every event of the scope in [from, to). */
      const fromEvents = async (scope: 'key' | 'group' | 'team', scopeId: string, from: Date | null, to: Date | null) => {
        let query = store.db.selectFrom('usage_events').select(sql<string>`coalesce(sum(budget_spend_micros), 0)::text`.as('spent')).where('team_id', '=', ids.team);
        if (scope === 'key') query = query.where('key_id', '=', scopeId);
        if (scope === 'group') query = query.where('group_id', '=', scopeId);
        if (from) query = query.where('occurred_at', '>=', from);
        if (to) query = query.where('occurred_at', '<', to);
        return BigInt((await query.executeTakeFirstOrThrow()).spent);
      };
      const at = (iso: string) => new Date(iso);
      const windows: [Date | null, Date | null][] = [
        [null, null],
        [at('2027-01-01T00:00:00Z'), at('2027-02-01T00:00:00Z')], // whole hours only
        [at('2027-01-04T18:30:00Z'), at('2027-01-05T18:30:00Z')], // a Kolkata day: part-hours at both ends
        [at('2027-01-05T18:30:00Z'), at('2027-01-06T18:30:00Z')],
        [at('2027-01-05T18:30:00Z'), at('2027-01-05T18:50:00Z')], // inside one hour
        [at('2027-01-05T18:45:00Z'), at('2027-01-05T19:00:00.001Z')], // crossing one hour's end
        [at('2027-01-05T18:29:59.999Z'), at('2027-01-05T18:30:00Z')], // one millisecond
        [at('2027-01-05T18:30:00Z'), null],
        [null, at('2027-01-05T18:30:00Z')],
      ];
      for (const [scope, scopeId] of [['team', ids.team], ['group', ids.group], ['key', ids.keyA], ['key', ids.keyB]] as const) {
        for (const [from, to] of windows) {
          const expected = await fromEvents(scope, scopeId, from, to);
          expect([scope, from?.toISOString(), to?.toISOString(), await sumBudgetSpend(store.db, { teamId: ids.team, scope, scopeId, from, to })]).toEqual([scope, from?.toISOString(), to?.toISOString(), expected]);
        }
      }
      // The Kolkata day of the 6th: 18:30:00 (3,000,009), 18:45 (4,000,012), 19:00 (unpriced) and 07:59:59 (6,000,018) UTC.
      expect(await sumBudgetSpend(store.db, { teamId: ids.team, scope: 'team', scopeId: ids.team, from: windows[3]![0], to: windows[3]![1] })).toBe(13_000_039n);
    });
  });
}
