// Billing's store on PGlite and (when TEST_DATABASE_URL is set) PostgreSQL: the plan
// history cut into segments, the plan units the repositories open and close, what a
// period counted (demo teams left out), invoices recorded once per period with their
// lines, and their moves draft → open → paid | void; numbers given at finalisation,
// consecutive and without gaps however many finalise at once.
import { randomUUID } from 'node:crypto';
import { buildInvoice, planTerms } from '@spendgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestSqlStore, sqlBackends } from '../../testing/sql.ts';
import { usageEvent } from '../../testing/usage-events.ts';
import type { SqlStore } from '../connect.ts';
import type { NewUsageEvent } from '../schema.ts';
import { recordInsight } from './advisor.ts';
import {
  changeSubscriptionPlan,
  countCharges,
  finalizeInvoice,
  findSubscriptionById,
  insertInvoice,
  invoiceInput,
  listInvoiceLines,
  listInvoices,
  moveInvoice,
  planSegments,
  recordInvoiceProof,
} from './billing.ts';
import { deleteGroup, insertGroup } from './groups.ts';
import { insertIssuedKey, revokeKey } from './keys.ts';
import { listPlanUnits, openPlanUnit } from './plan-units.ts';
import { findSubscription, upsertSubscription, upsertSubscriptionPlans } from './plans.ts';
import { deleteTeamMember, insertTeamMember } from './team-members.ts';
import { insertTeam } from './teams.ts';
import { insertUsageEvents } from './usage.ts';
import { insertUser } from './users.ts';

const at = (iso: string) => new Date(iso);
const march = { start: at('2026-03-01T00:00:00Z'), end: at('2026-04-01T00:00:00Z') };

for (const backend of sqlBackends) {
  describe(`billing store on ${backend}`, () => {
    let store: SqlStore;
    const ids = { user: randomUUID(), other: randomUUID(), team: randomUUID(), demo: randomUUID(), group: randomUUID() };
    let subscriptionId: string;
    const event = (overrides: Partial<NewUsageEvent>): NewUsageEvent =>
      usageEvent({ teamId: ids.team, groupId: ids.group, keyId: ids.group }, at('2026-03-10T12:00:00Z'), {
        cost_micros: 1_000n,
        billing_rule: 'optimised-uplift',
        billed_micros: 937n,
        budget_spend_micros: 937n,
        ...overrides,
      });

    beforeAll(async () => {
      store = await openTestSqlStore(backend);
      const plans = ['free-trial', 'developers', 'growth', 'enterprise'].map((slug) => ({ slug, name: slug, description: '', priceMicros: null, currency: 'GBP', listed: true, features: [] }));
      await upsertSubscriptionPlans(store.db, plans, new Date());
      for (const [id, email] of [
        [ids.user, `ada-${backend}@example.com`],
        [ids.other, `bob-${backend}@example.com`],
      ] as const) {
        await insertUser(store.db, { id, email, name: 'Ada', passwordHash: 'x' });
      }
      await upsertSubscription(store.db, { userId: ids.user, planSlug: 'developers', status: 'active', trialEnd: null, at: at('2026-01-01T00:00:00Z') });
      subscriptionId = (await findSubscription(store.db, ids.user))!.id;
      await insertTeam(store.db, { id: ids.team, name: 'Acme', description: '', createdBy: ids.user });
      await insertTeam(store.db, { id: ids.demo, name: 'Demo', description: '', createdBy: ids.user });
      await store.db.updateTable('teams').set({ is_demo: true }).where('id', '=', ids.demo).execute();
      await insertGroup(store.db, { id: ids.group, teamId: ids.team, name: 'Research', description: '', createdBy: ids.user });
    });
    afterAll(async () => {
      await store?.close();
    });

    it('keeps the plans a subscription was on, cut into segments of a window', async () => {
      // The same plan again records nothing; another plan records a change.
      await upsertSubscription(store.db, { userId: ids.user, planSlug: 'developers', status: 'active', trialEnd: null, at: at('2026-02-01T00:00:00Z') });
      await changeSubscriptionPlan(store.db, { subscriptionId, planSlug: 'growth', at: at('2026-03-11T00:00:00Z') });
      expect((await findSubscriptionById(store.db, subscriptionId))!.plan_slug).toBe('growth');
      const segments = await planSegments(store.db, subscriptionId, march.start, march.end);
      expect(segments.map((segment) => [segment.plan.slug, segment.from.toISOString(), segment.to.toISOString()])).toEqual([
        ['developers', '2026-03-01T00:00:00.000Z', '2026-03-11T00:00:00.000Z'],
        ['growth', '2026-03-11T00:00:00.000Z', '2026-04-01T00:00:00.000Z'],
      ]);
      const april = await planSegments(store.db, subscriptionId, march.end, at('2026-05-01T00:00:00Z'));
      expect(april.map((segment) => segment.plan.slug)).toEqual(['growth']);
    });

    it('opens and closes a span for each seat, group and optimised key as the repositories add and remove them', async () => {
      const [team, group, member] = [randomUUID(), randomUUID(), ids.other];
      await insertTeam(store.db, { id: team, name: 'Units', description: '', createdBy: ids.user });
      await insertGroup(store.db, { id: group, teamId: team, name: 'G', description: '', createdBy: ids.user });
      const key = (kind: 'optimised' | 'byok') =>
        insertIssuedKey(store.db, { id: randomUUID(), team_id: team, group_id: group, connection_id: null, kind, name: kind, key_hash: randomUUID(), key_prefix: 'sg_live_x', created_by: ids.user });
      const optimised = await key('optimised');
      const revoked = await key('optimised');
      await key('byok');
      await revokeKey(store.db, team, revoked.id, new Date(Date.now() + 1_000));
      await insertTeamMember(store.db, { teamId: team, userId: member, role: 'MEMBER' });
      expect(await insertTeamMember(store.db, { teamId: team, userId: member, role: 'MEMBER' })).toBe(false);
      await deleteTeamMember(store.db, team, member);
      await insertTeamMember(store.db, { teamId: team, userId: member, role: 'MEMBER' });

      const spans = async () =>
        (await listPlanUnits(store.db, [team], at('2020-01-01T00:00:00Z'), at('2100-01-01T00:00:00Z'))).map((unit) => [unit.kind, unit.target_id, unit.ended_at === null]);
      expect((await spans()).sort()).toEqual(
        [
          ['group', group, true],
          ['key', optimised.id, true],
          ['key', revoked.id, false],
          ['seat', ids.user, true],
          ['seat', member, false],
          ['seat', member, true],
        ].sort(),
      );
      // A group deleted takes its keys with it.
      await deleteGroup(store.db, team, group);
      expect((await spans()).filter(([, , live]) => live).map(([kind]) => kind)).toEqual(['seat', 'seat']);
    });

    it("counts a period's charged events per team, rule and fee, and leaves demo teams out", async () => {
      await insertUsageEvents(store.db, [
        event({}),
        event({ billed_micros: 2_063n }),
        event({ billed_micros: null, cost_micros: null }),
        event({ key_kind: 'optimised', billing_rule: 'optimised-minimum-fee', billed_micros: 2_000n }),
        event({ key_kind: 'optimised', billing_rule: 'optimised-minimum-fee', billed_micros: 1_800n, occurred_at: at('2026-03-20T00:00:00Z') }),
        event({ key_kind: 'byom', billing_rule: 'byom-routing-fee', billed_micros: 4_000n }),
        event({ key_kind: 'byok', billing_rule: 'byok-provider-direct', billed_micros: 0n }),
        event({ occurred_at: at('2026-04-01T00:00:00Z') }), // the next period
        event({ team_id: ids.demo, key_kind: 'byom', billing_rule: 'byom-routing-fee', billed_micros: 4_000n }),
      ]);
      const counted = await countCharges(store.db, [ids.team], march.start, march.end);
      expect(
        counted.map((charge) => [charge.rule, charge.unitMicros, charge.requests, charge.billedMicros, charge.unpricedRequests]).sort((a, b) => String(a).localeCompare(String(b))),
      ).toEqual([
        ['byom-routing-fee', 4_000n, 1n, 4_000n, 0n],
        ['optimised-minimum-fee', 1_800n, 1n, 1_800n, 0n],
        ['optimised-minimum-fee', 2_000n, 1n, 2_000n, 0n],
        ['optimised-uplift', null, 3n, 3_000n, 1n],
      ]);
      await recordInsight(store.db, advisorInsight(ids.team, ids.user, 30_000n, at('2026-03-05T00:00:00Z')));
      await recordInsight(store.db, advisorInsight(ids.demo, ids.user, 30_000n, at('2026-03-05T00:00:00Z')));
      await openPlanUnit(store.db, { teamId: ids.demo, kind: 'key', targetId: randomUUID(), at: march.start });

      const input = await invoiceInput(store.db, { id: subscriptionId, userId: ids.user }, { ...march, billedUntil: march.end });
      expect(input.teams.map((team) => team.teamId)).toEqual(
        [ids.team, ...(await store.db.selectFrom('teams').select('id').where('created_by', '=', ids.user).where('is_demo', '=', false).where('id', '!=', ids.team).execute()).map((row) => row.id)].sort(),
      );
      const acme = input.teams.find((team) => team.teamId === ids.team)!;
      expect(acme.advisorInsights).toEqual([{ teamId: ids.team, priceMicros: 30_000n, count: 1n }]);
      expect(input.plans.map((segment) => segment.plan.slug)).toEqual(['developers', 'growth']);
    });

    it('records one invoice per period with its lines, and moves it draft → open (numbered then) → paid, or to void', async () => {
      const built = buildInvoice({ period: march, plans: [{ plan: planTerms('growth'), from: march.start, to: march.end }], teams: [] });
      const record = (id: string) => insertInvoice(store.db, { id, subscriptionId, periodStart: march.start, periodEnd: march.end, billedUntil: march.end, createdAt: march.end, usageCountedBefore: march.end, ...built });
      const first = await record(randomUUID());
      const again = await record(randomUUID());
      expect([first.created, again.created, again.id]).toEqual([true, false, first.id]);
      const invoices = await listInvoices(store.db, subscriptionId);
      expect(invoices.map((invoice) => [invoice.status, invoice.total_pence, invoice.number])).toEqual([['draft', 9_900n, null]]); // a draft has no number
      const lines = await listInvoiceLines(store.db, first.id);
      expect(lines.map((line) => [line.position, line.kind, line.plan_slug, line.amount_micros, line.amount_pence, line.proof_found_micros])).toEqual([[0, 'plan', 'growth', 99_000_000n, 9_900n, null]]);

      const finalize = (invoiceId: string, when = at('2026-04-01T01:00:00Z')) => store.db.transaction().execute((trx) => finalizeInvoice(trx, invoiceId, when));
      expect(await moveInvoice(store.db, first.id, 'paid', new Date())).toBe(false); // not open yet
      const number = await finalize(first.id);
      expect(number).toMatch(/^SG-2026-\d{6}$/);
      expect(await finalize(first.id)).toBeUndefined();
      expect((await listInvoices(store.db, subscriptionId))[0]).toMatchObject({ status: 'open', number, finalized_at: at('2026-04-01T01:00:00Z') });
      expect(await moveInvoice(store.db, first.id, 'paid', new Date())).toBe(true);
      expect(await moveInvoice(store.db, first.id, 'void', new Date())).toBe(false); // a paid invoice stays paid
      expect((await listInvoices(store.db, subscriptionId))[0]!.paid_at).toBeInstanceOf(Date);

      const april = { start: march.end, end: at('2026-05-01T00:00:00Z') };
      const voided = await insertInvoice(store.db, { id: randomUUID(), subscriptionId, periodStart: april.start, periodEnd: april.end, billedUntil: april.end, createdAt: april.end, usageCountedBefore: april.end, lines: [], totalPence: 0n });
      expect(await moveInvoice(store.db, voided.id, 'void', new Date())).toBe(true);
      expect(await finalize(voided.id)).toBeUndefined();
      expect((await listInvoices(store.db, subscriptionId)).map((invoice) => [invoice.status, invoice.number])).toEqual([
        ['void', null],
        ['paid', number],
      ]);

      await recordInvoiceProof(store.db, { invoiceId: first.id, at: new Date(), ok: true, lines: [{ lineId: lines[0]!.id, quantity: 1n, amountMicros: 99_000_000n }] });
      expect((await listInvoiceLines(store.db, first.id))[0]!.proof_found_micros).toBe(99_000_000n);
      expect((await listInvoices(store.db, subscriptionId)).find((invoice) => invoice.id === first.id)!.proof_ok).toBe(true);
    });

    it('numbers invoices finalised at once consecutively, without duplicates, and a finalisation rolled back leaves no gap', async () => {
      const year = 2031;
      const drafts: string[] = [];
      for (let month = 0; month < 24; month++) {
        const start = new Date(Date.UTC(year, month, 1));
        const end = new Date(Date.UTC(year, month + 1, 1));
        const draft = await insertInvoice(store.db, { id: randomUUID(), subscriptionId, periodStart: start, periodEnd: end, billedUntil: end, createdAt: end, usageCountedBefore: end, lines: [], totalPence: 0n });
        drafts.push(draft.id);
      }
      const rolledBack = new Set(drafts.filter((_, index) => index % 3 === 0));
      const finalisedAt = at(`${year}-06-01T00:00:00Z`);
      const outcomes = await Promise.allSettled(
        drafts.map((id) =>
          store.db.transaction().execute(async (trx) => {
            const number = await finalizeInvoice(trx, id, finalisedAt);
            if (rolledBack.has(id)) throw new Error(`${number} rolled back`);
            return number;
          }),
        ),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toHaveLength(rolledBack.size);
      const stored = await store.db.selectFrom('invoices').select(['id', 'status', 'number']).where('id', 'in', drafts).execute();
      const numbers = stored.filter((row) => row.number !== null).map((row) => row.number!);
      expect(numbers.sort()).toEqual(Array.from({ length: drafts.length - rolledBack.size }, (_, index) => `SG-${year}-${String(index + 1).padStart(6, '0')}`));
      for (const row of stored) expect([row.id, row.status, row.number === null]).toEqual([row.id, rolledBack.has(row.id) ? 'draft' : 'open', rolledBack.has(row.id)]);

      // A draft finalised later takes the next number: the rolled-back ones gave theirs back.
      const [later] = [...rolledBack];
      expect(await store.db.transaction().execute((trx) => finalizeInvoice(trx, later!, finalisedAt))).toBe(`SG-${year}-${String(numbers.length + 1).padStart(6, '0')}`);
    });
  });
}

function advisorInsight(teamId: string, createdBy: string, priceMicros: bigint, createdAt: Date) {
  return {
    id: randomUUID(),
    team_id: teamId,
    fingerprint: randomUUID(),
    kind: 'idle-key' as const,
    key_id: null,
    connection_id: null,
    provider: null,
    model: null,
    title: 'Idle key',
    text: 'Revoke it',
    evidence: JSON.stringify({ requests: 0, exampleRequestIds: [], facts: {} }),
    change: JSON.stringify({ action: 'manual', instruction: 'none' }),
    confidence: 'high' as const,
    current_cost_micros: 0n,
    counterfactual_cost_micros: 0n,
    monthly_saving_micros: 0n,
    window_start: '2026-02-01',
    window_end: '2026-03-01',
    price_micros: priceMicros,
    plan_slug: 'growth',
    created_by: createdBy,
    created_at: createdAt,
  };
}
