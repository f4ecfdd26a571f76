// Invoices built and proved on a real database (PGlite, and PostgreSQL when
// TEST_DATABASE_URL is set), on a clock the test sets: a trial with a card starts billing
// at its end, one without is paused and one cancelled at its end ends; a month of metered usage (optimised uplift and
// minimum fees, BYOM routing fees, advisor insights, extra keys, groups and seats) makes
// an invoice whose lines equal amounts computed by hand, once however often the job runs;
// a plan changed mid-period is prorated and a cancellation at the period's end ends the
// subscription; usage of March recorded after March's invoice was built is billed once, on
// adjustment lines of April's, and the proof accounts for every March event across both;
// the nightly proof agrees with every line until an event is tampered with; a subscription
// cancelled at once gets its late usage, once past the grace, on one standalone adjustment
// invoice (a demo team's on none). Each change is in the audit log of the account's teams as
// the system's (no actor, no IP), with the status and the invoice's number and total.
import { randomUUID } from 'node:crypto';
import {
  cancelSubscription,
  changeSubscriptionPlan,
  closePlanUnits,
  findSubscription,
  insertPaymentMethod,
  insertTeam,
  insertUsageEvents,
  insertUser,
  listAudit,
  listInvoiceLines,
  listInvoices,
  type NewUsageEvent,
  openPlanUnit,
  recordInsight,
  upsertSubscription,
  upsertSubscriptionPlans,
  upsertTeamRetention,
} from '@spendgate/store';
import { openTestSqlStore, sqlBackends, type TestSqlStore, usageEvent } from '@spendgate/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInvoiceBuildProcessor, INVOICE_GRACE_MS } from './invoice-build.ts';
import { createInvoiceProofProcessor } from './invoice-proof.ts';

const at = (iso: string) => new Date(iso);
const MARCH = at('2025-03-01T00:00:00Z');
const APRIL = at('2025-04-01T00:00:00Z');
const MAY = at('2025-05-01T00:00:00Z');

describe.each(sqlBackends)('invoices on %s', (backend) => {
  let sql: TestSqlStore;
  const ids = {
    ada: randomUUID(),
    bob: randomUUID(),
    cy: randomUUID(),
    team: randomUUID(),
    demo: randomUUID(),
    bobTeam: randomUUID(),
    cyTeam: randomUUID(),
    group: randomUUID(),
    key: randomUUID(),
  };
  let subscriptionId: string;
  const proofErrors: { invoiceId: string; differences: unknown[] }[] = [];
  const proofSummaries: { invoices: number; mismatched: number; pendingLateRequests: string }[] = [];
  let sequence = 0;

  // No gateway here: the key caches a status change empties are tested end to end (e2e/api/subscription-keys.test.ts).
  const build = (now: Date) => createInvoiceBuildProcessor({ sql, log: { info: () => {} }, invalidateKey: async () => {}, usageEventRetentionDays: 400, now: () => now })();
  const prove = (now: Date) =>
    createInvoiceProofProcessor({
      sql,
      log: {
        info: (details: unknown) => void proofSummaries.push(details as (typeof proofSummaries)[number]),
        error: (details: unknown) => void proofErrors.push(details as (typeof proofErrors)[number]),
      },
      usageEventRetentionDays: 400,
      now: () => now,
    })();

  /** `count` requests at `occurredAt`, each billed `billed` (null: unpriced) under `rule`. */
  function events(count: number, occurredAt: Date, rule: string, billed: bigint | null, teamId = ids.team): NewUsageEvent[] {
    return Array.from({ length: count }, () => {
      sequence += 1;
      return usageEvent({ teamId, groupId: ids.group, keyId: ids.key }, occurredAt, {
        request_id: `invoice-${backend}-${sequence}`,
        cost_micros: billed === null ? null : 1_000n,
        price_version: billed === null ? null : '2026-08-21',
        key_kind: rule === 'byom-routing-fee' ? 'byom' : 'optimised',
        billing_rule: rule,
        billed_micros: billed,
        budget_spend_micros: billed ?? 0n,
      });
    });
  }

  const insight = (teamId: string, createdAt: Date) => ({
    id: randomUUID(),
    team_id: teamId,
    fingerprint: randomUUID(),
    kind: 'idle-key' as const,
    key_id: null,
    connection_id: null,
    provider: null,
    model: null,
    title: 'An idle key',
    text: 'Revoke it.',
    evidence: JSON.stringify({ requests: 0, exampleRequestIds: [], facts: {} }),
    change: JSON.stringify({ action: 'manual', instruction: 'Revoke it.' }),
    confidence: 'high' as const,
    current_cost_micros: 0n,
    counterfactual_cost_micros: 0n,
    monthly_saving_micros: 0n,
    window_start: '2025-02-01',
    window_end: '2025-03-01',
    price_micros: 30_000n,
    plan_slug: 'growth',
    created_by: ids.ada,
    created_at: createdAt,
  });

  /** The team's audit entries of `actions`, oldest first, as the system wrote them. */
  const audited = async (teamId: string, ...actions: string[]) =>
    (await listAudit(sql.db, teamId))
      .filter((row) => actions.includes(row.action))
      .map((row) => ({ action: row.action, actor: row.actor_user_id, ip: row.actor_ip, targetId: row.target_id, details: row.details, before: row.before, after: row.after }));

  const lines = async (invoiceId: string) =>
    (await listInvoiceLines(sql.db, invoiceId)).map((line) => [line.kind, line.plan_slug, line.quantity, line.amount_micros, line.amount_pence]);

  beforeAll(async () => {
    sql = await openTestSqlStore(backend);
    const plans = ['free-trial', 'developers', 'growth', 'enterprise'].map((slug) => ({ slug, name: slug, description: '', priceMicros: null, currency: 'GBP', listed: true, features: [] }));
    await upsertSubscriptionPlans(sql.db, plans, new Date());
    for (const user of [ids.ada, ids.bob, ids.cy]) await insertUser(sql.db, { id: user, email: `${user}@example.com`, name: 'Ada', passwordHash: 'x' });
    // Ada registered on 1 January for Growth: her 60-day trial ends on 1 March; she has added a card.
    await upsertSubscription(sql.db, { userId: ids.ada, planSlug: 'growth', status: 'trialing', trialEnd: MARCH, at: at('2025-01-01T00:00:00Z') });
    subscriptionId = (await findSubscription(sql.db, ids.ada))!.id;
    await insertPaymentMethod(sql.db, { id: randomUUID(), subscriptionId, stripePaymentMethodId: `pm_${backend}_ada`, brand: 'visa', last4: '4242', expMonth: 12, expYear: 2030, isDefault: true });
    // Bob's trial ends the same day, without a card.
    await upsertSubscription(sql.db, { userId: ids.bob, planSlug: 'growth', status: 'trialing', trialEnd: MARCH, at: at('2025-01-01T00:00:00Z') });
    // Cy's too, with a card, but she cancelled it at its end.
    await upsertSubscription(sql.db, { userId: ids.cy, planSlug: 'growth', status: 'trialing', trialEnd: MARCH, at: at('2025-01-01T00:00:00Z') });
    const cy = (await findSubscription(sql.db, ids.cy))!.id;
    await insertPaymentMethod(sql.db, { id: randomUUID(), subscriptionId: cy, stripePaymentMethodId: `pm_${backend}_cy`, brand: 'visa', last4: '4242', expMonth: 12, expYear: 2030, isDefault: true });
    await cancelSubscription(sql.db, cy, { immediate: false, at: at('2025-02-10T00:00:00Z') });
    // (The creator's seat each team opens starts now, in 2026, after these periods.)
    await insertTeam(sql.db, { id: ids.team, name: 'Acme', description: '', createdBy: ids.ada });
    await insertTeam(sql.db, { id: ids.demo, name: 'Demo', description: '', createdBy: ids.ada });
    await sql.db.updateTable('teams').set({ is_demo: true }).where('id', '=', ids.demo).execute();
    await insertTeam(sql.db, { id: ids.bobTeam, name: 'Bob', description: '', createdBy: ids.bob });
    await insertTeam(sql.db, { id: ids.cyTeam, name: 'Cy', description: '', createdBy: ids.cy });

    const unit = (kind: 'key' | 'group' | 'seat', from: Date) => openPlanUnit(sql.db, { teamId: ids.team, kind, targetId: randomUUID(), at: from });
    // 12 optimised keys and 7 seats all along; 11 groups until 11 March, then 10.
    for (let i = 0; i < 12; i++) await unit('key', at('2025-02-01T00:00:00Z'));
    for (let i = 0; i < 7; i++) await unit('seat', at('2025-02-01T00:00:00Z'));
    for (let i = 0; i < 10; i++) await unit('group', at('2025-02-01T00:00:00Z'));
    const eleventh = randomUUID();
    await openPlanUnit(sql.db, { teamId: ids.team, kind: 'group', targetId: eleventh, at: at('2025-02-01T00:00:00Z') });
    await closePlanUnits(sql.db, ids.team, 'group', [eleventh], at('2025-03-11T00:00:00Z'));
    // The demo team's units and usage are never billed.
    for (let i = 0; i < 30; i++) await openPlanUnit(sql.db, { teamId: ids.demo, kind: 'key', targetId: randomUUID(), at: at('2025-02-01T00:00:00Z') });

    const mid = at('2025-03-15T12:00:00Z');
    await insertUsageEvents(sql.db, [
      ...events(1, mid, 'optimised-uplift', 1_250_000n),
      ...events(1, mid, 'optimised-uplift', 2_500_000n),
      ...events(1, mid, 'optimised-uplift', 1_234_567n),
      ...events(1, mid, 'optimised-uplift', null), // unpriced: counted, not billed
      ...events(4, mid, 'optimised-minimum-fee', 1_800n),
      ...events(5, mid, 'byom-routing-fee', 4_000n),
      ...events(3, mid, 'byok-provider-direct', 0n),
      ...events(2, at('2025-02-20T00:00:00Z'), 'byom-routing-fee', 4_000n), // during the free trial
      ...events(7, mid, 'byom-routing-fee', 4_000n, ids.demo),
    ]);
    for (const day of ['2025-03-02', '2025-03-09', '2025-03-30']) await recordInsight(sql.db, insight(ids.team, at(`${day}T10:00:00Z`)));
    await recordInsight(sql.db, insight(ids.team, at('2025-02-27T10:00:00Z'))); // during the trial
    await recordInsight(sql.db, insight(ids.demo, at('2025-03-02T10:00:00Z')));
  });
  afterAll(() => sql?.close());

  it('starts billing at the end of a trial with a card, pauses one without, and ends one cancelled at its end', async () => {
    await build(at('2025-03-01T00:30:00Z'));
    const ada = (await findSubscription(sql.db, ids.ada))!;
    expect([ada.status, ada.billing_anchor, ada.current_period_start, ada.current_period_end]).toEqual(['active', MARCH, MARCH, APRIL]);
    expect((await findSubscription(sql.db, ids.bob))!.status).toBe('paused');
    const cy = (await findSubscription(sql.db, ids.cy))!;
    expect([cy.status, cy.canceled_at, cy.current_period_start, cy.cancel_at_period_end]).toEqual(['canceled', MARCH, null, false]);
    expect(await listInvoices(sql.db, subscriptionId)).toEqual([]);

    const trialEnded = { reason: 'trial ended', trialEnd: MARCH.toISOString() };
    const trialing = { status: 'trialing', planSlug: 'growth' };
    const system = { actor: null, ip: null };
    expect(await audited(ids.team, 'subscription.billing_started', 'subscription.paused', 'subscription.ended')).toEqual([
      {
        action: 'subscription.billing_started',
        ...system,
        targetId: subscriptionId,
        details: trialEnded,
        before: trialing,
        after: { status: 'active', planSlug: 'growth', periodStart: MARCH.toISOString(), periodEnd: APRIL.toISOString() },
      },
    ]);
    expect(await audited(ids.bobTeam, 'subscription.paused')).toEqual([
      expect.objectContaining({ ...system, details: trialEnded, before: trialing, after: { status: 'paused', planSlug: 'growth' } }),
    ]);
    expect(await audited(ids.cyTeam, 'subscription.ended')).toEqual([
      expect.objectContaining({ ...system, details: trialEnded, before: trialing, after: { status: 'canceled', canceledAt: MARCH.toISOString() } }),
    ]);
    // A demo team's log holds no billing: its account is never charged for it.
    expect(await audited(ids.demo, 'subscription.billing_started')).toEqual([]);
  });

  it("invoices a month of metered usage, each line as computed by hand, once however often it runs", async () => {
    await build(at('2025-04-01T00:30:00Z')); // within the hour's grace: not yet
    expect(await listInvoices(sql.db, subscriptionId)).toEqual([]);
    await Promise.all([build(at('2025-04-01T01:00:00Z')), build(at('2025-04-01T01:00:00Z'))]);
    await build(at('2025-04-01T02:00:00Z'));

    const [march] = await listInvoices(sql.db, subscriptionId);
    expect(await listInvoices(sql.db, subscriptionId)).toHaveLength(1);
    expect([march!.status, march!.period_start, march!.period_end, march!.billed_until, march!.currency]).toEqual(['open', MARCH, APRIL, APRIL, 'GBP']);
    expect(await lines(march!.id)).toEqual([
      ['plan', 'growth', 1n, 99_000_000n, 9_900n],
      ['byom-routing-fee', null, 5n, 20_000n, 2n], // 5 × £0.004
      ['optimised-minimum-fee', null, 4n, 7_200n, 1n], // 4 × £0.0018 = 0.72p
      ['optimised-uplift', null, 4n, 4_984_567n, 498n], // £1.25 + £2.50 + £1.234567, one unpriced
      ['advisor-insights', null, 3n, 90_000n, 9n], // 3 × £0.03
      ['extra-keys', 'growth', 2n, 6_000_000n, 600n], // 12 − 10 included, £3 each
      ['extra-groups', 'growth', 1n, 1_290_323n, 129n], // 1 extra for 10 of 31 days at £4
      ['extra-seats', 'growth', 2n, 16_000_000n, 1_600n], // 7 − 5 included, £8 each
    ]);
    expect(march!.total_pence).toBe(9_900n + 2n + 1n + 498n + 9n + 600n + 129n + 1_600n);
    // Finalised once, by the system, with its number and total; the trial's end was audited once.
    expect(await audited(ids.team, 'invoice.finalized', 'subscription.billing_started')).toEqual([
      expect.objectContaining({ action: 'subscription.billing_started' }),
      {
        action: 'invoice.finalized',
        actor: null,
        ip: null,
        targetId: march!.id,
        details: { kind: 'period', subscriptionId, periodStart: MARCH.toISOString(), periodEnd: APRIL.toISOString(), lines: 8 },
        before: { status: 'draft' },
        after: { status: 'open', number: march!.number, totalPence: '12739' },
      },
    ]);
    const ada = (await findSubscription(sql.db, ids.ada))!;
    expect([ada.current_period_start, ada.current_period_end]).toEqual([APRIL, MAY]);
  });

  it("holds usage of March recorded after March's invoice was built for the next invoice, and never on March's", async () => {
    const [march] = await listInvoices(sql.db, subscriptionId);
    const mid = at('2025-03-20T08:00:00Z');
    // An outbox replayed after an outage: March's requests reach the database in April.
    await insertUsageEvents(sql.db, [
      ...events(2, mid, 'byom-routing-fee', 4_000n),
      ...events(1, mid, 'optimised-uplift', 1_000_000n),
      ...events(3, mid, 'byom-routing-fee', 4_000n, ids.demo), // a demo team's: never billed
    ]);
    await build(at('2025-04-01T03:00:00Z'));
    expect(await listInvoices(sql.db, subscriptionId)).toEqual([march]);
    expect((await listInvoiceLines(sql.db, march!.id)).find((line) => line.kind === 'byom-routing-fee')!.quantity).toBe(5n);
  });

  it('prorates a plan changed mid-period, and ends a subscription cancelled at the period end', async () => {
    // 10 of April's 30 days on Growth, 20 on Developers; cancelled at the period's end.
    await changeSubscriptionPlan(sql.db, { subscriptionId, planSlug: 'developers', at: at('2025-04-11T00:00:00Z') });
    await sql.db.updateTable('subscriptions').set({ cancel_at_period_end: true }).where('id', '=', subscriptionId).execute();
    await build(at('2025-05-01T01:00:00Z'));
    const april = (await listInvoices(sql.db, subscriptionId)).find((invoice) => invoice.period_start.getTime() === APRIL.getTime())!;
    expect(await lines(april.id)).toEqual([
      ['plan', 'growth', 1n, 33_000_000n, 3_300n], // £99 × 10/30
      ['plan', 'developers', 1n, 19_333_333n, 1_933n], // £29 × 20/30
      ['extra-keys', 'growth', 2n, 2_000_000n, 200n], // 2 × £3 × 10/30
      ['extra-keys', 'developers', 10n, 33_333_333n, 3_333n], // 10 × £5 × 20/30
      ['extra-groups', 'developers', 8n, 26_666_667n, 2_667n], // (10 − 2) × £5 × 20/30; Growth includes 10
      ['extra-seats', 'growth', 2n, 5_333_333n, 533n], // 2 × £8 × 10/30
      ['extra-seats', 'developers', 5n, 33_333_333n, 3_333n], // 5 × £10 × 20/30
      // March's late usage, on adjustment lines of its own: 2 × £0.004 = 0.8p, and one request billed £1.
      ['byom-routing-fee', null, 2n, 8_000n, 1n],
      ['optimised-uplift', null, 1n, 1_000_000n, 100n],
    ]);
    expect(april.total_pence).toBe(3_300n + 1_933n + 200n + 3_333n + 2_667n + 533n + 3_333n + 1n + 100n);
    const march = (await listInvoices(sql.db, subscriptionId)).find((invoice) => invoice.period_start.getTime() === MARCH.getTime())!;
    const adjustments = (await listInvoiceLines(sql.db, april.id)).filter((line) => line.adjusts_invoice_id !== null);
    expect(adjustments.map((line) => [line.adjusts_invoice_id, line.adjusts_number, line.window_start, line.window_end, line.arrived_from])).toEqual([
      [march.id, march.number, MARCH, APRIL, march.usage_counted_before],
      [march.id, march.number, MARCH, APRIL, march.usage_counted_before],
    ]);
    expect(adjustments[0]!.description).toBe(`Adjustment to ${march.number}, usage of 2025-03-01 to 2025-04-01 recorded after it was invoiced: BYOM routing: 2 requests × £0.004`);
    // Every March event of the team is on exactly one line: 5 on March's own, 2 on April's adjustment.
    const marchByom = await sql.db
      .selectFrom('usage_events')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('team_id', '=', ids.team)
      .where('billing_rule', '=', 'byom-routing-fee')
      .where('occurred_at', '>=', MARCH)
      .where('occurred_at', '<', APRIL)
      .executeTakeFirstOrThrow();
    const marchLine = (await listInvoiceLines(sql.db, march.id)).find((line) => line.kind === 'byom-routing-fee')!;
    expect(marchLine.quantity + adjustments[0]!.quantity).toBe(BigInt(marchByom.n));
    const ada = (await findSubscription(sql.db, ids.ada))!;
    expect([ada.status, ada.canceled_at, ada.current_period_start, ada.current_period_end]).toEqual(['canceled', MAY, null, null]);
    expect((await audited(ids.team, 'invoice.finalized')).at(-1)).toMatchObject({ targetId: april.id, after: { status: 'open', number: april.number, totalPence: april.total_pence.toString() } });
    expect(await audited(ids.team, 'subscription.ended')).toEqual([
      {
        action: 'subscription.ended',
        actor: null,
        ip: null,
        targetId: subscriptionId,
        details: { reason: 'cancelled at the end of its period' },
        before: { status: 'active', planSlug: 'developers' },
        after: { status: 'canceled', canceledAt: MAY.toISOString() },
      },
    ]);
    await build(at('2025-06-01T01:00:00Z'));
    expect(await listInvoices(sql.db, subscriptionId)).toHaveLength(2);
  });

  it('proves every line against what it counts, counts late usage still to bill, and flags the line whose event was tampered with', async () => {
    // One more March request reaches the database after April's invoice: late usage still to bill.
    await insertUsageEvents(sql.db, events(1, at('2025-03-25T00:00:00Z'), 'byom-routing-fee', 4_000n));
    await prove(at('2025-06-02T03:00:00Z'));
    const proved = await listInvoices(sql.db, subscriptionId);
    expect(proved.map((invoice) => invoice.proof_ok)).toEqual([true, true]);
    expect(proofErrors).toEqual([]);
    expect(proofSummaries.at(-1)).toEqual({ invoices: 2, mismatched: 0, pendingLateRequests: '1' });
    const marchId = proved.find((invoice) => invoice.period_start.getTime() === MARCH.getTime())!.id;
    expect((await listInvoiceLines(sql.db, marchId)).every((line) => line.proof_found_micros === line.amount_micros && line.proof_found_quantity === line.quantity)).toBe(true);

    // One optimised request's billed amount is raised by 1p after the invoice was built.
    const tampered = await sql.db
      .updateTable('usage_events')
      .set({ billed_micros: 2_510_000n })
      .where('team_id', '=', ids.team)
      .where('billed_micros', '=', 2_500_000n)
      .executeTakeFirst();
    expect(tampered.numUpdatedRows).toBe(1n);
    await prove(at('2025-06-03T03:00:00Z'));
    const after = await listInvoices(sql.db, subscriptionId);
    expect(after.find((invoice) => invoice.id === marchId)!.proof_ok).toBe(false);
    expect(after.find((invoice) => invoice.id !== marchId)!.proof_ok).toBe(true);
    const uplift = (await listInvoiceLines(sql.db, marchId)).find((line) => line.kind === 'optimised-uplift')!;
    expect([uplift.amount_micros, uplift.proof_found_micros, uplift.proof_found_quantity]).toEqual([4_984_567n, 4_994_567n, 4n]);
    expect(proofErrors).toEqual([expect.objectContaining({ invoiceId: marchId, differences: [expect.objectContaining({ line: uplift.id, found: '4 for 4994567 µ' })] })]);
  });

  it('proves no invoice whose period one of its teams no longer keeps the events of (its own, shorter retention)', async () => {
    // The team keeps its raw events 90 days: March (ended 1 April) is past them on 5 July, April (ended 1 May) is not.
    await upsertTeamRetention(sql.db, ids.team, { usage_event_days: 90, gpu_sample_hours: null }, ids.ada);
    const before = await listInvoices(sql.db, subscriptionId);
    await prove(at('2025-07-05T03:00:00Z'));
    const after = await listInvoices(sql.db, subscriptionId);
    const march = (invoices: typeof after) => invoices.find((invoice) => invoice.period_start.getTime() === MARCH.getTime())!;
    expect(march(after).proof_checked_at).toEqual(march(before).proof_checked_at);
    expect(after.find((invoice) => invoice !== march(after))!.proof_checked_at).toEqual(at('2025-07-05T03:00:00Z'));
  });

  it("bills an ended subscription's late usage past the grace on one standalone adjustment invoice, and a demo team's on none", async () => {
    // Dan and Eve start Growth on 1 November 2025 (inside the 400 days kept) and cancel at once on the 10th;
    // Eve's only team is a demo team.
    const dan = { user: randomUUID(), team: randomUUID() };
    const eve = { user: randomUUID(), team: randomUUID() };
    const NOVEMBER = at('2025-11-01T00:00:00Z');
    const subscriptionOf = async (who: { user: string; team: string }, name: string) => {
      await insertUser(sql.db, { id: who.user, email: `${who.user}@example.com`, name, passwordHash: 'x' });
      await upsertSubscription(sql.db, { userId: who.user, planSlug: 'growth', status: 'trialing', trialEnd: NOVEMBER, at: at('2025-09-01T00:00:00Z') });
      const id = (await findSubscription(sql.db, who.user))!.id;
      await insertPaymentMethod(sql.db, { id: randomUUID(), subscriptionId: id, stripePaymentMethodId: `pm_${backend}_${name}`, brand: 'visa', last4: '4242', expMonth: 12, expYear: 2030, isDefault: true });
      await insertTeam(sql.db, { id: who.team, name, description: '', createdBy: who.user });
      return id;
    };
    const danSubscription = await subscriptionOf(dan, 'dan');
    const eveSubscription = await subscriptionOf(eve, 'eve');
    await sql.db.updateTable('teams').set({ is_demo: true }).where('id', '=', eve.team).execute();
    await build(at('2025-11-01T02:00:00Z'));
    for (const id of [danSubscription, eveSubscription]) await cancelSubscription(sql.db, id, { immediate: true, at: at('2025-11-10T00:00:00Z') });
    await build(at('2025-11-10T02:00:00Z'));
    const [final] = await listInvoices(sql.db, danSubscription);
    expect(final!.status).toBe('open');
    expect(await listInvoices(sql.db, eveSubscription)).toHaveLength(1);

    // November's requests reach the database after the final invoices were built.
    const mid = at('2025-11-05T12:00:00Z');
    await insertUsageEvents(sql.db, [
      ...events(3, mid, 'byom-routing-fee', 4_000n, dan.team),
      ...events(1, mid, 'optimised-uplift', 1_234_567n, dan.team),
      ...events(4, mid, 'byom-routing-fee', 4_000n, eve.team),
    ]);
    // Within the grace after they arrived (more may be on their way): nothing yet.
    const arrived = new Date();
    await build(arrived);
    expect(await listInvoices(sql.db, danSubscription)).toHaveLength(1);

    const pastGrace = new Date(arrived.getTime() + INVOICE_GRACE_MS + 60_000);
    await build(pastGrace);
    const invoices = await listInvoices(sql.db, danSubscription);
    expect(invoices).toHaveLength(2);
    const adjustment = invoices.find((invoice) => invoice.id !== final!.id)!;
    expect(await lines(adjustment.id)).toEqual([
      ['byom-routing-fee', null, 3n, 12_000n, 1n], // 3 × £0.004 = 1.2p
      ['optimised-uplift', null, 1n, 1_234_567n, 123n], // £1.234567
    ]);
    expect([adjustment.status, adjustment.total_pence]).toEqual(['open', 124n]);
    expect(adjustment.number).toMatch(/^SG-2026-\d{6}$/); // numbered in the year it is finalised
    const adjusts = (await listInvoiceLines(sql.db, adjustment.id)).map((line) => [line.adjusts_invoice_id, line.window_start, line.window_end]);
    expect(adjusts).toEqual([
      [final!.id, NOVEMBER, at('2025-11-10T00:00:00Z')],
      [final!.id, NOVEMBER, at('2025-11-10T00:00:00Z')],
    ]);
    expect(await listInvoices(sql.db, eveSubscription)).toHaveLength(1);
    expect((await audited(dan.team, 'invoice.finalized')).at(-1)).toEqual({
      action: 'invoice.finalized',
      actor: null,
      ip: null,
      targetId: adjustment.id,
      details: { kind: 'adjustment', subscriptionId: danSubscription, lines: 2 },
      before: { status: 'draft' },
      after: { status: 'open', number: adjustment.number, totalPence: '124' },
    });
    expect(await audited(eve.team, 'invoice.finalized')).toEqual([]);

    // A run again bills nothing again, and the proof finds everything billed.
    await build(new Date(pastGrace.getTime() + 60_000));
    expect(await listInvoices(sql.db, danSubscription)).toHaveLength(2);
    const errorsBefore = proofErrors.length;
    await prove(new Date(pastGrace.getTime() + 120_000));
    expect(proofErrors.length).toBe(errorsBefore);
    expect(proofSummaries.at(-1)).toEqual({ invoices: 3, mismatched: 0, pendingLateRequests: '0' }); // Dan's two, Eve's final one
    expect((await listInvoices(sql.db, danSubscription)).map((invoice) => invoice.proof_ok)).toEqual([true, true]);
  });
});
