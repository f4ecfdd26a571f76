/**
 * Spendgate's invoices charged through Stripe, in every run mode, against the Stripe fake on
 * a clock the test sets: a billed period's invoice becomes a Stripe invoice whose items are
 * its lines to the penny, finalized and paid with the default card, once however often the
 * job runs; a declined card leaves it open and the subscription past due, and when Stripe's
 * retry succeeds the webhook marks it paid and the subscription active again. Each outcome is
 * in the account's team's audit log once, as the system's, with the invoice's number and total
 * and the subscription's status before and after.
 */
import { findInvoiceById, listAudit } from '@spendgate/store';
import { createInvoiceBuildProcessor, createInvoiceCollectProcessor } from '@spendgate/worker';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeStripe, startFakeStripe } from '../fakes/stripe.ts';
import { signUp } from '../support/sign-up.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

for (const mode of testModes) {
  describe(`invoices charged through Stripe (${mode})`, () => {
    let fake: FakeStripe;
    let stripe: Stripe;
    let spendgate: RunningSpendgate;
    // Registration 61 days ago: the trial ended a day ago.
    const registeredAt = new Date(Date.now() - 61 * DAY_MS);
    let growthId: string;
    const errors: unknown[] = [];

    beforeAll(async () => {
      fake = await startFakeStripe();
      stripe = new Stripe(fake.apiKey, { ...fake.sdkOptions, maxNetworkRetries: 0 });
      spendgate = await startSpendgate(mode, `invoice-collect-${mode}`, {
        env: { STRIPE_API_URL: fake.url, STRIPE_SECRET_KEY: fake.apiKey, STRIPE_WEBHOOK_SECRET: fake.webhookSecret },
        clock: () => registeredAt,
      });
      growthId = (await callApi(spendgate.url, 'GET', '/subscription/plans')).body.data.find((plan: { slug: string }) => plan.slug === 'growth').id;
    });
    afterAll(async () => {
      await spendgate?.close();
      await fake?.close();
    });

    const db = () => spendgate.app.runtime.stores.sql.db;
    const build = (at: Date) => createInvoiceBuildProcessor({ sql: spendgate.app.runtime.stores.sql, log: { info: () => {} }, invalidateKey: spendgate.app.runtime.stores.invalidateKey, usageEventRetentionDays: spendgate.app.runtime.config.usageEventRetentionDays, now: () => at })();
    const collect = (at: Date) =>
      createInvoiceCollectProcessor({
        sql: spendgate.app.runtime.stores.sql,
        stripe: spendgate.app.runtime.config.stripe,
        invalidateKey: spendgate.app.runtime.stores.invalidateKey,
        log: { info: () => {}, error: (details: unknown) => void errors.push(details) },
        now: () => at,
      })();
    const stripeWrites = () => fake.requests.filter((request) => request.method === 'POST' && /^\/v1\/invoice/.test(request.path)).length;

    /** An account on Growth whose trial has ended with `card` saved, billed for its first period: its open invoice. */
    async function billedAccount(email: string, card: string) {
      const { token } = await signUp(spendgate.url, email, { planId: growthId });
      const team = await callApi(spendgate.url, 'POST', '/team/', { token, body: { name: 'Billed', description: '' } });
      expect(team.status).toBe(201);
      const intent = (await callApi(spendgate.url, 'POST', '/subscription/create-setup-intent', { token })).body.data;
      const confirmed = await stripe.setupIntents.confirm(intent.setupIntentId, { payment_method: card });
      expect((await callApi(spendgate.url, 'POST', '/subscription/save-payment-method', { token, body: { paymentMethodId: confirmed.payment_method } })).status).toBe(200);
      const trialEnd = new Date(registeredAt.getTime() + 60 * DAY_MS);
      await build(new Date(trialEnd.getTime() + HOUR_MS));
      const subscription = (await callApi(spendgate.url, 'GET', '/subscription/current', { token })).body.data;
      expect(subscription).toMatchObject({ status: 'active', currentPeriodStart: trialEnd.toISOString() });
      const periodEnd = new Date(subscription.currentPeriodEnd);
      await build(new Date(periodEnd.getTime() + 2 * HOUR_MS));
      const [invoice] = (await callApi(spendgate.url, 'GET', '/subscription/billing', { token })).body.data;
      expect(invoice).toMatchObject({ status: 'open', totalPence: 9900 });
      const detail = (await callApi(spendgate.url, 'GET', `/subscription/invoice/${invoice.id}`, { token })).body.data;
      return { token, teamId: team.body.data.id as string, invoice, lines: detail.lines as { id: string; description: string; amountPence: number }[], at: new Date(periodEnd.getTime() + 3 * HOUR_MS) };
    }

    /** The team's audit entries of the invoice's collection, oldest first. */
    const collections = async (teamId: string) =>
      (await listAudit(db(), teamId))
        .filter((row) => row.action === 'invoice.collected' || row.action === 'invoice.declined')
        .map((row) => ({ action: row.action, actor: row.actor_user_id, ip: row.actor_ip, targetId: row.target_id, details: row.details, before: row.before, after: row.after }));

    it('charges an invoice as a Stripe invoice of its lines to the penny, once however often the job runs', async () => {
      const { token, teamId, invoice, lines, at } = await billedAccount(`paid-${mode}@example.com`, 'pm_card_visa');
      await collect(at);
      const kept = await findInvoiceById(db(), invoice.id);
      expect(kept).toMatchObject({ status: 'paid', stripe_invoice_id: expect.stringMatching(/^in_/) });
      const charged = await stripe.invoices.retrieve(kept!.stripe_invoice_id!);
      expect(charged).toMatchObject({ status: 'paid', total: 9900, amount_paid: 9900, currency: 'gbp', metadata: { invoiceId: invoice.id, number: invoice.number } });
      expect(charged.lines.data.map((line) => [line.description, line.amount])).toEqual(lines.map((line) => [line.description, line.amountPence]));
      expect((await callApi(spendgate.url, 'GET', '/subscription/current', { token })).body.data.status).toBe('active');

      const writes = stripeWrites();
      await collect(at);
      await collect(new Date(at.getTime() + DAY_MS));
      expect(stripeWrites()).toBe(writes);
      expect(errors).toEqual([]);
      expect(await collections(teamId)).toEqual([
        {
          action: 'invoice.collected',
          actor: null,
          ip: null,
          targetId: invoice.id,
          details: { number: invoice.number, totalPence: '9900', stripeInvoiceId: kept!.stripe_invoice_id },
          before: { status: 'open', subscriptionStatus: 'active' },
          after: { status: 'paid', subscriptionStatus: 'active' },
        },
      ]);
    });

    it("leaves an invoice open when the card is declined, then the webhook marks it paid when Stripe's retry succeeds", async () => {
      const { token, teamId, invoice, at } = await billedAccount(`declined-${mode}@example.com`, 'pm_card_chargeCustomerFail');
      await collect(at);
      const kept = await findInvoiceById(db(), invoice.id);
      expect(kept).toMatchObject({ status: 'open', stripe_invoice_id: expect.stringMatching(/^in_/) });
      expect(await stripe.invoices.retrieve(kept!.stripe_invoice_id!)).toMatchObject({ status: 'open', attempt_count: 1, auto_advance: true, amount_remaining: 9900 });
      expect((await callApi(spendgate.url, 'GET', '/subscription/current', { token })).body.data.status).toBe('past_due');
      // Taken once: the next run leaves it to Stripe's retries.
      const writes = stripeWrites();
      await collect(at);
      expect(stripeWrites()).toBe(writes);

      // A new card as the default; Stripe's retry charges it and says so by webhook.
      const intent = (await callApi(spendgate.url, 'POST', '/subscription/create-setup-intent', { token })).body.data;
      const visa = String((await stripe.setupIntents.confirm(intent.setupIntentId, { payment_method: 'pm_card_visa' })).payment_method);
      await callApi(spendgate.url, 'POST', '/subscription/save-payment-method', { token, body: { paymentMethodId: visa, makeDefault: true } });
      fake.forwardTo(`${spendgate.url}/api/subscription/webhook`);
      await stripe.invoices.pay(kept!.stripe_invoice_id!);
      await fake.settled();
      await spendgate.app.runtime.stores.queue.drain();
      expect(await findInvoiceById(db(), invoice.id)).toMatchObject({ status: 'paid' });
      expect((await callApi(spendgate.url, 'GET', '/subscription/current', { token })).body.data.status).toBe('active');
      expect(errors).toEqual([]);
      const audited = { actor: null, ip: null, targetId: invoice.id };
      const charged = { number: invoice.number, totalPence: '9900', stripeInvoiceId: kept!.stripe_invoice_id };
      expect(await collections(teamId)).toEqual([
        { action: 'invoice.declined', ...audited, details: charged, before: { status: 'open', subscriptionStatus: 'active' }, after: { status: 'open', subscriptionStatus: 'past_due' } },
        {
          action: 'invoice.collected',
          ...audited,
          details: { ...charged, source: 'stripe-webhook' },
          before: { status: 'open', subscriptionStatus: 'past_due' },
          after: { status: 'paid', subscriptionStatus: 'active' },
        },
      ]);
    });
  });
}
