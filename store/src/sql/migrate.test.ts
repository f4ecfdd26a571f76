// Migrations that change rows, on a real database (PGlite, and PostgreSQL when
// TEST_DATABASE_URL is set), run over rows as they were written before them.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as demoNeverCharged from '../../../migrations/20261127_0201_demo_never_charged.ts';
import { openTestSqlStore, sqlBackends, type TestSqlStore } from '../testing/sql.ts';
import { usageEvent } from '../testing/usage-events.ts';
import { insertGroup } from './repos/groups.ts';
import { insertIssuedKey } from './repos/keys.ts';
import { insertTeam } from './repos/teams.ts';
import { insertUsageEvents } from './repos/usage.ts';
import { reconcileRollups } from './repos/usage-rollups.ts';
import { insertUser } from './repos/users.ts';

const DAY_MS = 86_400_000;

describe.each(sqlBackends)('data migrations on %s', (backend) => {
  let store: TestSqlStore;
  beforeAll(async () => {
    store = await openTestSqlStore(backend);
  });
  afterAll(() => store?.close());

  /** A team with two requests billed £0.003 each and an advisor tip charged £0.03. */
  async function chargedTeam(isDemo: boolean) {
    const [userId, teamId, groupId, keyId] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await insertUser(store.db, { id: userId, email: `${userId}@example.com`, name: 'Ada', passwordHash: 'x' });
    await insertTeam(store.db, { id: teamId, name: 'Acme', description: '', createdBy: userId });
    await store.db.updateTable('teams').set({ is_demo: isDemo }).where('id', '=', teamId).execute();
    await insertGroup(store.db, { id: groupId, teamId, name: 'Research', description: '', createdBy: userId });
    await insertIssuedKey(store.db, { id: keyId, team_id: teamId, group_id: groupId, connection_id: null, kind: 'optimised', name: 'k', key_hash: `h-${keyId}`, key_prefix: 'sg_live_a', created_by: userId });
    const event = () => usageEvent({ teamId, groupId, keyId }, new Date(Date.now() - DAY_MS), { billing_rule: 'optimised-uplift' });
    await insertUsageEvents(store.db, [event(), event()]);
    await store.db
      .insertInto('advisor_insights')
      .values({
        id: randomUUID(), team_id: teamId, fingerprint: 'idle-key', kind: 'idle-key', key_id: keyId, connection_id: null, provider: null, model: null, title: 'Idle', text: 'Idle',
        evidence: JSON.stringify({ requests: 0, exampleRequestIds: [], facts: {} }), change: JSON.stringify({ action: 'revoke-key', keyId }), confidence: 'high',
        current_cost_micros: 0n, counterfactual_cost_micros: 0n, monthly_saving_micros: 0n, window_start: '2026-11-01', window_end: '2026-11-07', price_micros: 30_000n, plan_slug: 'growth', created_by: userId,
      })
      .execute();
    return teamId;
  }

  /** What a team's events, rollup cells and tips were charged, and what its events counted on budgets. */
  async function charges(teamId: string) {
    const events = await store.db
      .selectFrom('usage_events')
      .select([sql<string>`sum(billed_micros)`.as('billed'), sql<string>`sum(budget_spend_micros)`.as('spent'), sql<string>`string_agg(distinct billing_rule, ',')`.as('rules')])
      .where('team_id', '=', teamId)
      .executeTakeFirstOrThrow();
    const cells = await store.db.selectFrom('usage_rollups').select(sql<string>`sum(billed_micros)`.as('billed')).where('team_id', '=', teamId).where('grain', '=', 'day').executeTakeFirstOrThrow();
    const tips = await store.db.selectFrom('advisor_insights').select('price_micros').where('team_id', '=', teamId).execute();
    return { billed: BigInt(events.billed), spent: BigInt(events.spent), rules: events.rules, cells: BigInt(cells.billed), tips: tips.map((tip) => BigInt(tip.price_micros)) };
  }

  it('20261127_0201 sets what demo teams were charged to nothing, and only theirs', async () => {
    const demo = await chargedTeam(true);
    const real = await chargedTeam(false);
    await demoNeverCharged.up(store.db);
    expect(await charges(demo)).toEqual({ billed: 0n, spent: 6_000n, rules: 'demo-never-billed', cells: 0n, tips: [0n] });
    expect(await charges(real)).toEqual({ billed: 6_000n, spent: 6_000n, rules: 'optimised-uplift', cells: 6_000n, tips: [30_000n] });
    expect(await reconcileRollups(store.db, { from: new Date(Date.now() - 3 * DAY_MS), to: new Date() })).toEqual([]);
  });
});
