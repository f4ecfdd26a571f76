// The spend digest on a real database (PGlite, and PostgreSQL when TEST_DATABASE_URL is set):
// an admin's weekly digest is stored in the outbox from 08:00 in the team's zone on the
// Monday after the week, once however many runs race, with the week's exact figures from the
// rollups; a monthly one covers the calendar month; a member who is not an admin gets none.
import { randomUUID } from 'node:crypto';
import {
  insertBudget,
  insertGroup,
  insertIssuedKey,
  insertTeam,
  insertTeamMember,
  insertUsageEvents,
  insertUser,
  type JobPayloads,
  saveForecast,
  setSpendDigest,
} from '@spendgate/store';
import { openTestSqlStore, sqlBackends, type TestSqlStore, usageEvent } from '@spendgate/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpendDigestPreviewProcessor, createSpendDigestProcessor } from './spend-digest.ts';

describe.each(sqlBackends)('spend digest on %s', (backend) => {
  let sql: TestSqlStore;
  beforeAll(async () => {
    sql = await openTestSqlStore(backend);
  });
  afterAll(() => sql?.close());

  /** A London team with two groups and an admin and a member, and its spend in November 2026. */
  async function team() {
    const [admin, member, teamId, research, support, keyId, supportKey] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await insertUser(sql.db, { id: admin, email: `${admin}@example.com`, name: 'Ada', passwordHash: 'x' });
    await insertUser(sql.db, { id: member, email: `${member}@example.com`, name: 'Max', passwordHash: 'x' });
    await insertTeam(sql.db, { id: teamId, name: 'Acme', description: '', createdBy: admin });
    await sql.db.updateTable('teams').set({ time_zone: 'Europe/London' }).where('id', '=', teamId).execute();
    await insertTeamMember(sql.db, { teamId, userId: member, role: 'MEMBER' });
    await insertGroup(sql.db, { id: research, teamId, name: 'Research', description: '', createdBy: admin });
    await insertGroup(sql.db, { id: support, teamId, name: 'Support', description: '', createdBy: admin });
    for (const [id, groupId] of [[keyId, research], [supportKey, support]] as const) {
      await insertIssuedKey(sql.db, { id, team_id: teamId, group_id: groupId, connection_id: null, kind: 'optimised', name: 'k', key_hash: `h-${id}`, key_prefix: 'sg_live_a', created_by: admin });
    }
    const spend = (owner: { groupId: string; keyId: string }, at: string, count: number, micros: bigint | null, model = 'gpt-4o') =>
      insertUsageEvents(
        sql.db,
        Array.from({ length: count }, () => usageEvent({ teamId, ...owner }, new Date(at), { model, cost_micros: micros, billed_micros: micros, budget_spend_micros: micros ?? 0n })),
      );
    // A £20 monthly budget on the team, then a £2 weekly one on Research.
    for (const [scope, scopeId, amount, window] of [['team', teamId, 20_000_000n, 'month'], ['group', research, 2_000_000n, 'week']] as const) {
      await insertBudget(sql.db, { id: randomUUID(), team_id: teamId, scope, scope_id: scopeId, amount_micros: amount, window, mode: 'soft', alert_at: '[]', created_by: admin });
    }
    const researchKey = { groupId: research, keyId };
    // The week of 9 Nov: £1.00. The week of 16 Nov: £2.50 + £0.123456 + an unpriced request, and Sunday 22 Nov 23:30 London.
    await spend(researchKey, '2026-11-10T12:00:00Z', 4, 250_000n);
    await spend(researchKey, '2026-11-17T12:00:00Z', 10, 250_000n);
    await spend({ groupId: support, keyId: supportKey }, '2026-11-22T23:30:00Z', 1, 123_456n, 'claude-sonnet-4');
    await spend(researchKey, '2026-11-18T12:00:00Z', 1, null, 'mystery-model');
    // Monday 23 Nov, London: the next week.
    await spend(researchKey, '2026-11-23T09:00:00Z', 7, 1_000_000n);
    return { teamId, admin, member };
  }

  function digester(at: string) {
    const enqueued: string[] = [];
    const run = createSpendDigestProcessor({ sql, publicUrl: 'https://spendgate.example', queue: { enqueue: async (_name, _payload, options) => void enqueued.push(options.jobId) }, now: () => new Date(at) });
    return { run: () => run({} as JobPayloads['spend-digest'], { jobId: 'spend-digest', attempt: 1 }), enqueued };
  }

  const mailTo = (userId: string) => sql.db.selectFrom('mail_outbox').select(['subject', 'text_body']).where('to_address', '=', `${userId}@example.com`).orderBy('created_at').execute();

  it('sends an admin’s weekly digest once, from 08:00 local the Monday after, with the week’s exact figures', async () => {
    const { teamId, admin, member } = await team();
    await setSpendDigest(sql.db, teamId, admin, 'weekly', new Date());
    await setSpendDigest(sql.db, teamId, member, 'weekly', new Date());

    await digester('2026-11-23T07:59:00Z').run();
    expect(await mailTo(admin), 'not before 08:00 on Monday').toEqual([]);

    const runs = [digester('2026-11-23T08:00:00Z'), digester('2026-11-23T08:00:00Z'), digester('2026-11-23T08:30:00Z')];
    await Promise.all(runs.map((digest) => digest.run()));
    const mails = await mailTo(admin);
    expect(mails).toHaveLength(1);
    expect(runs.flatMap((digest) => digest.enqueued)).toHaveLength(1);
    expect(mails[0]!.subject).toBe('Acme: £2.623456 on AI 16 Nov 2026 – 22 Nov 2026');
    expect(mails[0]!.text_body).toBe(
      [
        'Acme: AI spend 16 Nov 2026 – 22 Nov 2026',
        '',
        'Spend: £2.623456, +162% on the week before (£1.00).',
        'Requests: 12.',
        'Unpriced requests: 1 — no known price, so not in the spend above.',
        '',
        'Top models:',
        '  gpt-4o: £2.50 (10 requests)',
        '  claude-sonnet-4: £0.123456 (1 request)',
        '  mystery-model: £0.00 (1 request)',
        '',
        'Top synthetic groups:',
        '  Research: £2.50 (11 requests)',
        '  Support: £0.123456 (1 request)',
        '',
        'Budgets, as the period closed:',
        '  team Acme, monthly: £3.623456 of £20.00 (18%)',
        '  group Research, weekly: £2.50 of £2.00 (125%)',
        '',
        `The same days in the console: https://spendgate.example/dashboard?team=${teamId}&start=2026-11-16&end=2026-11-22`,
        '',
        'You get this because you asked for it in Alerts; change or stop it there.',
      ].join('\n'),
    );
    expect(await mailTo(member), 'a member who is not an admin gets none').toEqual([]);

    await digester('2026-11-25T12:00:00Z').run();
    expect(await mailTo(admin), 'the same week is not sent again').toHaveLength(1);
  });

  it('sends a monthly digest for the calendar month, with the stored forecast of the month it starts, and none once stopped', async () => {
    const { teamId, admin } = await team();
    await setSpendDigest(sql.db, teamId, admin, 'monthly', new Date());
    const amounts = { actualMicros: 0n, projectedMicros: 42_000_000n, lower80Micros: 30_000_000n, upper80Micros: 55_250_000n, lower95Micros: 20_000_000n, upper95Micros: 70_000_000n };
    await saveForecast(sql.db, { scopeId: teamId, period: '2026-12', teamId, groupId: null, madeAt: new Date('2026-11-30T18:00:00Z'), method: 'ets', fallback: false, ...amounts, days: [] });
    await digester('2026-12-01T08:30:00Z').run();
    const [november] = await mailTo(admin);
    expect(november!.subject).toBe('Acme: £10.623456 on AI 1 Nov 2026 – 30 Nov 2026');
    expect(november!.text_body).toContain('Spend: £10.623456, nothing the month before.');
    expect(november!.text_body).toContain('Forecast for December 2026: £42.00 (80% range £30.00 – £55.25).');
    // As November closed: the month's whole spend; the weekly budget's last week of it (from Monday 30 Nov: nothing).
    expect(november!.text_body).toContain('  team Acme, monthly: £10.623456 of £20.00 (53%)\n  group Research, weekly: £0.00 of £2.00 (0%)');

    await setSpendDigest(sql.db, teamId, admin, null, new Date());
    await digester('2027-01-01T09:00:00Z').run();
    expect(await mailTo(admin)).toHaveLength(1);
  });

  it('mails a sample of the last whole period when asked, not counted as that period’s, and none to a member', async () => {
    const { teamId, admin, member } = await team();
    const preview = createSpendDigestPreviewProcessor({ sql, publicUrl: 'https://spendgate.example', queue: { enqueue: async () => undefined }, now: () => new Date('2026-11-25T12:00:00Z') });
    await preview({ teamId, userId: admin, frequency: 'weekly' }, { jobId: 'preview-1', attempt: 1 });
    await preview({ teamId, userId: member, frequency: 'weekly' }, { jobId: 'preview-2', attempt: 1 });
    const [sample] = await mailTo(admin);
    expect(sample!.subject).toBe('Sample: Acme: £2.623456 on AI 16 Nov 2026 – 22 Nov 2026');
    expect(sample!.text_body.split('\n').slice(0, 3)).toEqual(['A sample you asked for in Alerts; the weekly digest itself comes on its own.', '', 'Acme: AI spend 16 Nov 2026 – 22 Nov 2026']);
    expect(await mailTo(member)).toEqual([]);
    // The week's own digest still goes.
    await setSpendDigest(sql.db, teamId, admin, 'weekly', new Date());
    await digester('2026-11-25T12:00:00Z').run();
    expect((await mailTo(admin)).map((mail) => mail.subject)).toEqual(['Sample: Acme: £2.623456 on AI 16 Nov 2026 – 22 Nov 2026', 'Acme: £2.623456 on AI 16 Nov 2026 – 22 Nov 2026']);
  });
});
