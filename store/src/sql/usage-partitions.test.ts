// usage_events' partition upkeep on PGlite and (with TEST_DATABASE_URL) PostgreSQL: months
// made ahead across a year's end, rows back-filled into DEFAULT moved into a partition of
// their own, months wholly past retention dropped with their rollups kept, request ids
// forgotten only past retention, and a request recorded once across all of it.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestSqlStore, sqlBackends } from '../testing/sql.ts';
import { usageEvent } from '../testing/usage-events.ts';
import type { SqlStore } from './connect.ts';
import { insertGroup } from './repos/groups.ts';
import { insertIssuedKey } from './repos/keys.ts';
import { insertTeam } from './repos/teams.ts';
import { insertUsageEvents } from './repos/usage.ts';
import { insertUser } from './repos/users.ts';
import { REQUEST_ID_REPLAY_DAYS, upkeepUsagePartitions, usagePartitions } from './usage-partitions.ts';

const DAY_MS = 86_400_000;

for (const backend of sqlBackends) {
  describe(`usage partition upkeep on ${backend}`, () => {
    let store: SqlStore;
    const ids = { user: randomUUID(), team: randomUUID(), group: randomUUID(), key: randomUUID() };
    const event = (occurredAt: string, requestId: string = randomUUID()) =>
      usageEvent({ teamId: ids.team, groupId: ids.group, keyId: ids.key }, occurredAt, { request_id: requestId });

    const partitions = () => usagePartitions(store.db);
    const rowsIn = async (table: string) =>
      (await sql<{ request_id: string }>`select request_id from ${sql.table(table)} order by request_id`.execute(store.db)).rows.map((row) => row.request_id);
    const requestsRolledUp = async () =>
      Number((await store.db.selectFrom('usage_rollups').select(sql<string>`sum(requests)`.as('n')).where('team_id', '=', ids.team).where('grain', '=', 'day').executeTakeFirstOrThrow()).n);

    beforeAll(async () => {
      store = await openTestSqlStore(backend, new Date('2026-11-15T00:00:00Z'));
      const { db } = store;
      await insertUser(db, { id: ids.user, email: `partitions-${backend}@example.com`, name: 'P', passwordHash: 'x' });
      await insertTeam(db, { id: ids.team, name: 'Partitions', description: '', createdBy: ids.user });
      await insertGroup(db, { id: ids.group, teamId: ids.team, name: 'G', description: '', createdBy: ids.user });
      await insertIssuedKey(db, { id: ids.key, team_id: ids.team, group_id: ids.group, connection_id: null, kind: 'byok', name: 'k', key_hash: `h-${ids.key}`, key_prefix: 'sg_live_p', created_by: ids.user });
    });
    afterAll(() => store?.close());

    it('makes the months ahead across the year’s end, then nothing more when run again', async () => {
      const first = await upkeepUsagePartitions(store.db, new Date('2026-12-20T00:00:00Z'), 400);
      expect(first.created).toContain('usage_events_2027_03');
      expect(await partitions()).toEqual(expect.arrayContaining(['usage_events_2026_11', 'usage_events_2026_12', 'usage_events_2027_01', 'usage_events_2027_02', 'usage_events_2027_03']));
      const again = await upkeepUsagePartitions(store.db, new Date('2026-12-20T00:00:00Z'), 400);
      expect(again).toEqual({ created: [], movedFromDefault: 0, dropped: [], requestIdsPruned: 0 });
    });

    it('moves a back-filled month out of DEFAULT into its own partition, and records a retried request once', async () => {
      const backFilled = [event('2026-05-10T12:00:00Z', 'may-a'), event('2026-05-31T23:59:59Z', 'may-b'), event('2026-06-01T00:00:00Z', 'june-a')];
      expect(await insertUsageEvents(store.db, backFilled)).toBe(3);
      expect(await rowsIn('usage_events_default')).toEqual(['june-a', 'may-a', 'may-b']);

      const upkeep = await upkeepUsagePartitions(store.db, new Date('2026-12-20T00:00:00Z'), 400);
      expect(upkeep.created.sort()).toEqual(['usage_events_2026_05', 'usage_events_2026_06']);
      expect(upkeep.movedFromDefault).toBe(3);
      expect(await rowsIn('usage_events_default')).toEqual([]);
      expect(await rowsIn('usage_events_2026_05')).toEqual(['may-a', 'may-b']);
      expect(await rowsIn('usage_events_2026_06')).toEqual(['june-a']);

      // The meter tries the May batch again after its event moved partitions: nothing is recorded twice.
      const rolledUp = await requestsRolledUp();
      expect(await insertUsageEvents(store.db, [event('2026-05-10T12:00:00Z', 'may-a')])).toBe(0);
      expect(await rowsIn('usage_events_2026_05')).toEqual(['may-a', 'may-b']);
      expect(await requestsRolledUp()).toBe(rolledUp);
    });

    it('drops months wholly past retention and keeps their rollups; forgets request ids only past retention', async () => {
      await insertUsageEvents(store.db, [event('2026-11-25T00:00:00Z', 'november-a')]);
      const now = new Date('2026-12-20T00:00:00Z');
      const retentionDays = 30; // the cut-off is 2026-11-20: October and before go whole, November stays.
      const forgetBefore = new Date(now.getTime() - (retentionDays + REQUEST_ID_REPLAY_DAYS) * DAY_MS);
      await store.db.updateTable('usage_request_ids').set({ claimed_at: new Date(forgetBefore.getTime() - 1) }).where('request_id', 'in', ['may-a', 'may-b']).execute();
      await store.db.updateTable('usage_request_ids').set({ claimed_at: forgetBefore }).where('request_id', '=', 'june-a').execute();
      const rolledUp = await requestsRolledUp();

      const upkeep = await upkeepUsagePartitions(store.db, now, retentionDays);
      expect(upkeep.dropped).toEqual(expect.arrayContaining(['usage_events_2026_05', 'usage_events_2026_06', 'usage_events_2026_10']));
      expect(upkeep.dropped.every((name) => name < 'usage_events_2026_11')).toBe(true);
      expect(await partitions()).toEqual(expect.arrayContaining(['usage_events_2026_11', 'usage_events_default']));
      expect(await partitions()).not.toContain('usage_events_2026_05');
      expect(await rowsIn('usage_events')).toEqual(['november-a']);
      expect(await requestsRolledUp()).toBe(rolledUp);

      expect(upkeep.requestIdsPruned).toBe(2);
      const remembered = (await store.db.selectFrom('usage_request_ids').select('request_id').orderBy('request_id').execute()).map((row) => row.request_id);
      expect(remembered).toEqual(['june-a', 'november-a']);
    });

    it('lets two upkeeps run at once: each month is made once', async () => {
      const now = new Date('2031-02-10T00:00:00Z');
      const [a, b] = await Promise.all([upkeepUsagePartitions(store.db, now, 400), upkeepUsagePartitions(store.db, now, 400)]);
      expect([...a.created, ...b.created].sort()).toEqual(['usage_events_2031_01', 'usage_events_2031_02', 'usage_events_2031_03', 'usage_events_2031_04', 'usage_events_2031_05']);
      const dropped = [...a.dropped, ...b.dropped];
      expect(dropped).toContain('usage_events_2026_11');
      expect(new Set(dropped).size).toBe(dropped.length);
    });
  });
}
