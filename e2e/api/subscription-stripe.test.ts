/**
 * The Stripe-facing subscription calls of spec §7, in every run mode, against the Stripe fake:
 * checkout with a card (Checkout in setup mode: the card becomes the default, the plan is
 * chosen, once, whether the success page or the webhook sees it first), a card through a
 * SetupIntent saved, made the default and removed, a subscription started on a saved card,
 * its plan changed, cancelled at period end (and kept), then at once; and the refusals.
 */
import { periodEndAfter } from '@spendgate/core';
import { findStripeObject, listAudit } from '@spendgate/store';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeStripe, startFakeStripe } from '../fakes/stripe.ts';
import { signUp } from '../support/sign-up.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';

for (const mode of testModes) {
  describe(`subscriptions through Stripe (${mode})`, () => {
    let fake: FakeStripe;
    let stripe: Stripe;
    let spendgate: RunningSpendgate;
    const planIds: Record<string, string> = {};

    beforeAll(async () => {
      fake = await startFakeStripe();
      stripe = new Stripe(fake.apiKey, { ...fake.sdkOptions, maxNetworkRetries: 0 });
      spendgate = await startSpendgate(mode, `subscription-stripe-${mode}`, {
        env: { STRIPE_API_URL: fake.url, STRIPE_SECRET_KEY: fake.apiKey, STRIPE_WEBHOOK_SECRET: fake.webhookSecret, PUBLIC_URL: 'https://console.spendgate.test' },
      });
      for (const plan of (await callApi(spendgate.url, 'GET', '/subscription/plans')).body.data) planIds[plan.slug] = plan.id;
    });
    afterAll(async () => {
      await spendgate?.close();
      await fake?.close();
    });

    const webhookUrl = () => `${spendgate.url}/api/subscription/webhook`;
    /** Sends the webhook every event made since `from` (an index in fake.events), and waits until the worker has processed them. */
    const deliverEventsSince = async (from: number) => {
      for (const event of fake.events.slice(from)) expect(await fake.redeliver(event.id, webhookUrl())).toBe(200);
      await spendgate.app.runtime.stores.queue.drain();
    };
    const call = (token: string, method: string, route: string, body?: unknown) => callApi(spendgate.url, method, `/subscription${route}`, { token, ...(body === undefined ? {} : { body }) });
    const customerOf = async (token: string) => {
      const subscription = await spendgate.app.runtime.stores.sql.db.selectFrom('subscriptions').select('stripe_customer_id').where('id', '=', (await call(token, 'GET', '/current')).body.data.id).executeTakeFirstOrThrow();
      return (await stripe.customers.retrieve(subscription.stripe_customer_id!)) as Stripe.Customer;
    };
    /** A card collected by Stripe.js: the SetupIntent confirmed with a test card, as the browser does. */
    const cardThroughSetupIntent = async (token: string, testCard: string) => {
      const started = await call(token, 'POST', '/create-setup-intent');
      expect(started.status, JSON.stringify(started.body)).toBe(200);
      expect(started.body.data.clientSecret).toMatch(new RegExp(`^${started.body.data.setupIntentId}_secret_`));
      const confirmed = await stripe.setupIntents.confirm(started.body.data.setupIntentId, { payment_method: testCard });
      return String(confirmed.payment_method);
    };

    it('checks out with a card: the trial goes on, on the plan chosen, with that card as the default; applied once', async () => {
      const { token } = await signUp(spendgate.url, `checkout-${mode}@example.com`, { planId: planIds.developers });
      expect((await call(token, 'GET', '/current')).body.data).toMatchObject({ plan: 'developers', status: 'trialing', isTrialing: true, hasPaymentMethod: false, cancelAtPeriodEnd: false });

      const started = await call(token, 'POST', '/create-checkout-session', { planId: planIds.growth });
      expect(started.status, JSON.stringify(started.body)).toBe(200);
      const { sessionId, url } = started.body.data;
      expect(url).toBe(`${fake.url}/c/pay/${sessionId}`);
      const paid = await fetch(url, { method: 'POST', body: new URLSearchParams({ card: 'pm_card_visa' }), redirect: 'manual' });
      expect(paid.headers.get('location')).toBe(`https://console.spendgate.test/dashboard/billing/success?session_id=${sessionId}`);

      // The success page asks (twice) before the webhook comes: it is applied then, once.
      for (let time = 0; time < 2; time++) {
        const checkout = await call(token, 'GET', `/checkout/${sessionId}`);
        expect(checkout.body).toMatchObject({ success: true, data: { id: sessionId, status: 'complete', paymentStatus: 'no_payment_required' } });
      }
      const current = (await call(token, 'GET', '/current')).body.data;
      expect(current).toMatchObject({ plan: 'growth', status: 'trialing', hasPaymentMethod: true });
      const cards = (await call(token, 'GET', '/payment-methods')).body.data;
      expect(cards).toEqual([{ id: expect.stringMatching(/^pm_/), brand: 'visa', last4: '4242', expMonth: 12, expYear: expect.any(Number), isDefault: true, createdAt: expect.any(String) }]);
      expect((await customerOf(token)).invoice_settings.default_payment_method).toBe(cards[0].id);
      const details = (await call(token, 'GET', '/subscription-details')).body.data;
      expect(details).toMatchObject({ plan: { slug: 'growth', price: 99 }, defaultPaymentMethod: { id: cards[0].id }, nextInvoiceAt: current.trialEnd });

      // A plan changed after the checkout stays when the checkout's webhook comes later.
      expect((await call(token, 'POST', '/change-plan', { planId: planIds.developers })).body.data.plan).toBe('developers');
      await deliverEventsSince(0);
      expect((await findStripeObject(spendgate.app.runtime.stores.sql.db, sessionId))?.state).toMatchObject({ status: 'complete' });
      expect((await call(token, 'GET', '/current')).body.data).toMatchObject({ plan: 'developers', hasPaymentMethod: true });
      const history = await spendgate.app.runtime.stores.sql.db.selectFrom('subscription_plan_history').select('plan_slug').where('subscription_id', '=', current.id).orderBy('effective_at').execute();
      expect(history.map((row) => row.plan_slug)).toEqual(['developers', 'growth', 'developers']);

      // A buyer who never comes back to the success page: the webhook applies the checkout.
      const away = await signUp(spendgate.url, `away-${mode}@example.com`, { planId: planIds.developers });
      const awayTeam = (await callApi(spendgate.url, 'POST', '/team/', { token: away.token, body: { name: 'Away', description: '' } })).body.data.id as string;
      const awaySession = (await call(away.token, 'POST', '/create-checkout-session', { planId: planIds.growth })).body.data.sessionId;
      const awayEvents = fake.events.length;
      fake.completeCheckout(awaySession, 'pm_card_amex');
      await deliverEventsSince(awayEvents);
      expect((await call(away.token, 'GET', '/current')).body.data).toMatchObject({ plan: 'growth', hasPaymentMethod: true });
      expect((await call(away.token, 'GET', '/payment-methods')).body.data).toMatchObject([{ brand: 'amex', last4: '8431', isDefault: true }]);
      // The team the subscription pays for audits it, made by the system (the webhook's job).
      const audited = (await listAudit(spendgate.app.runtime.stores.sql.db, awayTeam)).filter((entry) => entry.action === 'subscription.checkout_completed');
      expect(audited).toMatchObject([{ actor_user_id: null, before: { planSlug: 'developers' }, after: { planSlug: 'growth', defaultCard: 'amex 8431' } }]);

      // Someone else's checkout is not yours.
      const other = await signUp(spendgate.url, `other-${mode}@example.com`);
      expect((await call(other.token, 'GET', `/checkout/${sessionId}`)).status).toBe(404);
      expect((await call(other.token, 'GET', '/checkout/cs_test_doesNotExist')).status).toBe(404);
    });

    it('saves a card through a SetupIntent, makes it the default, and removes the other', async () => {
      const { token } = await signUp(spendgate.url, `cards-${mode}@example.com`);
      const visa = await cardThroughSetupIntent(token, 'pm_card_visa');
      const savedVisa = await call(token, 'POST', '/save-payment-method', { paymentMethodId: visa });
      expect(savedVisa.body.data).toMatchObject({ id: visa, brand: 'visa', last4: '4242', isDefault: true });
      const mastercard = await cardThroughSetupIntent(token, 'pm_card_mastercard');
      expect((await call(token, 'POST', '/save-payment-method', { paymentMethodId: mastercard })).body.data).toMatchObject({ id: mastercard, isDefault: false });
      // Saving again changes nothing.
      expect((await call(token, 'POST', '/save-payment-method', { paymentMethodId: mastercard })).body.data).toMatchObject({ id: mastercard, isDefault: false });
      expect((await call(token, 'GET', '/payment-methods')).body.data.map((card: { last4: string; isDefault: boolean }) => [card.last4, card.isDefault])).toEqual([
        ['4242', true],
        ['4444', false],
      ]);

      expect((await call(token, 'POST', '/payment-method', { paymentMethodId: mastercard })).body.data).toMatchObject({ id: mastercard, isDefault: true });
      expect((await customerOf(token)).invoice_settings.default_payment_method).toBe(mastercard);

      const removed = await call(token, 'DELETE', `/payment-method/${visa}`);
      expect(removed.body.data.map((card: { id: string; isDefault: boolean }) => [card.id, card.isDefault])).toEqual([[mastercard, true]]);
      expect((await stripe.paymentMethods.retrieve(visa)).customer).toBeNull();
      // Removing the default hands it to the newest other card; the last one of a trial may go too.
      expect((await call(token, 'DELETE', `/payment-method/${mastercard}`)).body.data).toEqual([]);
      expect((await customerOf(token)).invoice_settings.default_payment_method).toBeNull();

      expect((await call(token, 'DELETE', `/payment-method/${visa}`)).status).toBe(404);
      const malformed = await call(token, 'POST', '/save-payment-method', { paymentMethodId: 'card_4242' });
      expect([malformed.status, malformed.body.field]).toEqual([400, 'paymentMethodId']);
      const unknown = await call(token, 'POST', '/save-payment-method', { paymentMethodId: 'pm_unknown' });
      expect([unknown.status, unknown.body.field]).toEqual([400, 'paymentMethodId']);
      const someoneElses = await cardThroughSetupIntent((await signUp(spendgate.url, `thief-${mode}@example.com`)).token, 'pm_card_visa');
      const stolen = await call(token, 'POST', '/save-payment-method', { paymentMethodId: someoneElses });
      // Stripe refuses to attach another customer's card; its word comes back naming the field.
      expect([stolen.status, stolen.body.message]).toEqual([400, 'paymentMethodId: The payment method you provided has already been attached to a customer.']);
    });

    it('starts billing on a saved card, changes plan, cancels at period end and takes it back, then cancels at once', async () => {
      const { token } = await signUp(spendgate.url, `billing-${mode}@example.com`, { planId: planIds.developers });
      // A trial cancelled at its end stays a trial until then.
      expect((await call(token, 'POST', '/cancel', { immediate: false })).body.data).toMatchObject({ status: 'trialing', cancelAtPeriodEnd: true });
      expect((await call(token, 'POST', '/cancel', { immediate: true })).body.data).toMatchObject({ status: 'canceled', canceledAt: expect.any(String) });
      expect((await call(token, 'POST', '/cancel', { immediate: true })).status).toBe(409);

      const noCard = await call(token, 'POST', '/create', { planId: planIds.developers });
      expect(noCard.status).toBe(402);
      expect(noCard.body).toMatchObject({ code: 'payment_method_required' });
      const card = await cardThroughSetupIntent(token, 'pm_card_visa');
      const before = Date.now();
      const subscribed = await call(token, 'POST', '/create', { planId: planIds.developers, paymentMethodId: card });
      const after = Date.now();
      expect(subscribed.status, JSON.stringify(subscribed.body)).toBe(200);
      const active = subscribed.body.data;
      expect(active).toMatchObject({ plan: 'developers', status: 'active', cancelAtPeriodEnd: false, canceledAt: null, hasPaymentMethod: true });
      const start = new Date(active.currentPeriodStart);
      const end = new Date(active.currentPeriodEnd);
      expect(end).toEqual(periodEndAfter(start, start));
      expect(start.getTime()).toBeGreaterThanOrEqual(before);
      expect(start.getTime()).toBeLessThanOrEqual(after);
      expect((await call(token, 'POST', '/create', { planId: planIds.growth })).status).toBe(409);

      const changed = await call(token, 'POST', '/change-plan', { planId: planIds.growth });
      expect(changed.body.data).toMatchObject({ plan: 'growth', previousPlan: 'developers', status: 'active', changedAt: expect.any(String) });
      const history = await spendgate.app.runtime.stores.sql.db
        .selectFrom('subscription_plan_history')
        .select(['plan_slug', 'effective_at'])
        .where('subscription_id', '=', active.id)
        .orderBy('effective_at')
        .execute();
      expect(history.map((row) => row.plan_slug)).toEqual(['developers', 'growth']);
      expect(history[1]!.effective_at.toISOString()).toBe(changed.body.data.changedAt);
      const same = await call(token, 'POST', '/change-plan', { planId: planIds.growth });
      expect([same.status, same.body.field]).toEqual([400, 'planId']);

      expect((await call(token, 'POST', '/cancel', { immediate: false })).body.data).toMatchObject({ status: 'active', cancelAtPeriodEnd: true, currentPeriodEnd: active.currentPeriodEnd });
      const onlyCard = await call(token, 'DELETE', `/payment-method/${card}`);
      expect(onlyCard.status).toBe(200);
      // Subscribing again before the period ends keeps it (on the plan asked for).
      const card2 = await cardThroughSetupIntent(token, 'pm_card_mastercard');
      expect((await call(token, 'POST', '/create', { planId: planIds.growth, paymentMethodId: card2 })).body.data).toMatchObject({ status: 'active', cancelAtPeriodEnd: false, plan: 'growth' });
      const lastCard = await call(token, 'DELETE', `/payment-method/${card2}`);
      expect(lastCard.status).toBe(409);
      expect(lastCard.body).toMatchObject({ code: 'conflict' });

      const ended = await call(token, 'POST', '/cancel', { immediate: true });
      expect(ended.body.data).toMatchObject({ status: 'canceled', cancelAtPeriodEnd: false, canceledAt: expect.any(String), currentPeriodEnd: active.currentPeriodEnd });
      // Its last period is invoiced (invoice-build) before it may start again.
      expect((await call(token, 'POST', '/create', { planId: planIds.growth })).status).toBe(409);
    });

    it('refuses plans not sold here, wrong bodies, and no session', async () => {
      const { token } = await signUp(spendgate.url, `refusals-${mode}@example.com`);
      for (const [planId, message] of [
        [planIds.enterprise, 'planId: the Enterprise plan is arranged with sales (Contact Sales)'],
        [planIds['free-trial'], 'planId: the free trial is not a plan to subscribe to; choose Developers or Growth'],
        ['00000000-0000-4000-8000-000000000000', 'planId: no such plan'],
      ]) {
        const refused = await call(token, 'POST', '/create-checkout-session', { planId });
        expect([refused.status, refused.body.field, refused.body.message]).toEqual([400, 'planId', message]);
      }
      for (const [route, body, field] of [
        ['/cancel', { immediate: 'yes' }, 'immediate'],
        ['/cancel', {}, 'immediate'],
        ['/change-plan', { planId: 'growth' }, 'planId'],
        ['/create', { planId: planIds.growth, extra: 1 }, 'body'],
      ] as const) {
        const refused = await call(token, 'POST', route, body);
        expect([refused.status, refused.body.field], `${route} ${JSON.stringify(body)}`).toEqual([400, field]);
      }
      expect((await callApi(spendgate.url, 'GET', '/subscription/current')).status).toBe(401);
      expect((await callApi(spendgate.url, 'POST', '/subscription/create-setup-intent')).status).toBe(401);
    });
  });
}
