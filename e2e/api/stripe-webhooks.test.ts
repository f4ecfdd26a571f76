/**
 * Stripe's webhooks, in every run mode, from the Stripe fake to POST /api/subscription/webhook:
 * a verified event is kept and processed once by the worker (the object it names read back
 * from Stripe, the newest read kept), however often and in whatever order it arrives; a
 * delivery whose Stripe-Signature does not hold is refused with 400 and nothing is kept.
 */
import { findStripeEvent, findStripeObject } from '@spendgate/store';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeStripe, startFakeStripe } from '../fakes/stripe.ts';
import { type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';

const REPLAYS = 1_000;

for (const mode of testModes) {
  describe(`Stripe's webhooks (${mode})`, () => {
    let fake: FakeStripe;
    let stripe: Stripe;
    let spendgate: RunningSpendgate;
    let webhookUrl: string;

    beforeAll(async () => {
      fake = await startFakeStripe();
      stripe = new Stripe(fake.apiKey, { ...fake.sdkOptions, maxNetworkRetries: 0 });
      spendgate = await startSpendgate(mode, `stripe-webhooks-${mode}`, {
        env: { STRIPE_API_URL: fake.url, STRIPE_SECRET_KEY: fake.apiKey, STRIPE_WEBHOOK_SECRET: fake.webhookSecret },
      });
      webhookUrl = `${spendgate.url}/api/subscription/webhook`;
    });
    afterAll(async () => {
      await spendgate?.close();
      await fake?.close();
    });

    const db = () => spendgate.app.runtime.stores.sql.db;
    const processed = async () => {
      await fake.settled();
      await spendgate.app.runtime.stores.queue.drain();
    };
    /** How many times the worker read this object back from Stripe. */
    const readsOf = (path: string) => fake.requests.filter((request) => request.method === 'GET' && request.path.split('?')[0] === path).length;
    const eventsAbout = (id: string) => fake.events.filter((event) => (event.data.object as { id: string }).id === id);

    async function subscribeWithCard(email: string) {
      const price = await stripe.prices.create({ currency: 'gbp', unit_amount: 4900, recurring: { interval: 'month' }, product_data: { name: 'Growth' } });
      const customer = await stripe.customers.create({ email, payment_method: 'pm_card_visa' });
      const card = (await stripe.customers.listPaymentMethods(customer.id)).data[0]!.id;
      return stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], default_payment_method: card });
    }

    it("keeps each event of a card checkout and processes it once: the objects read back are Stripe's state", async () => {
      fake.forwardTo(webhookUrl);
      const price = await stripe.prices.create({ currency: 'gbp', unit_amount: 1900, recurring: { interval: 'month' }, product_data: { name: 'Developers' } });
      const session = await stripe.checkout.sessions.create({ mode: 'subscription', customer_email: `checkout-${mode}@example.com`, line_items: [{ price: price.id }], success_url: 'http://console.test/ok' });
      const completed = fake.completeCheckout(session.id);
      await processed();
      fake.stopForwarding();

      const delivered = fake.deliveries.filter((delivery) => delivery.url === webhookUrl);
      expect(delivered.length).toBe(fake.events.length);
      expect(delivered.every((delivery) => delivery.status === 200)).toBe(true);
      for (const event of fake.events) {
        const kept = await findStripeEvent(db(), event.id);
        expect(kept, event.type).toMatchObject({ type: event.type, receipts: 1, processed_at: expect.any(Date) });
      }
      const subscriptionId = String(completed.subscription);
      expect((await findStripeObject(db(), subscriptionId))?.state).toMatchObject({ id: subscriptionId, status: 'active', customer: completed.customer });
      expect((await findStripeObject(db(), session.id))?.state).toMatchObject({ status: 'complete', payment_status: 'paid', subscription: subscriptionId });
      expect((await findStripeObject(db(), String(completed.invoice)))?.state).toMatchObject({ status: 'paid', amount_paid: 1900 });
      // One read back per event about the object, none for the others (payment methods are read when listed).
      expect(readsOf(`/v1/subscriptions/${subscriptionId}`)).toBe(eventsAbout(subscriptionId).length);
      expect(readsOf(`/v1/checkout/sessions/${session.id}`)).toBe(1);
    });

    it(`processes an event delivered twice, then replayed ${REPLAYS.toLocaleString('en-GB')} times, once`, async () => {
      const event = fake.events.find((candidate) => candidate.type === 'customer.subscription.created')!;
      const subscriptionId = (event.data.object as { id: string }).id;
      const before = await findStripeEvent(db(), event.id);
      const readsBefore = readsOf(`/v1/subscriptions/${subscriptionId}`);
      expect(await fake.redeliver(event.id, webhookUrl)).toBe(200);
      const statuses: number[] = [];
      for (let sent = 0; sent < REPLAYS; sent += 50) {
        statuses.push(...(await Promise.all(Array.from({ length: 50 }, () => fake.redeliver(event.id, webhookUrl)))));
      }
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      await processed();
      const after = await findStripeEvent(db(), event.id);
      expect(after?.receipts).toBe(REPLAYS + 2);
      expect(after?.processed_at).toEqual(before?.processed_at);
      expect(readsOf(`/v1/subscriptions/${subscriptionId}`)).toBe(readsBefore);
    });

    it('keeps the newest state when the events come newest first', async () => {
      const subscription = await subscribeWithCard(`order-${mode}@example.com`);
      await stripe.subscriptions.update(subscription.id, { cancel_at_period_end: true });
      const events = eventsAbout(subscription.id);
      expect(events.map((event) => event.type)).toEqual(['customer.subscription.created', 'customer.subscription.updated', 'customer.subscription.updated']);
      for (const event of [...events].reverse()) expect(await fake.redeliver(event.id, webhookUrl)).toBe(200);
      await processed();
      for (const event of events) expect((await findStripeEvent(db(), event.id))?.processed_at).toEqual(expect.any(Date));
      expect((await findStripeObject(db(), subscription.id))?.state).toMatchObject({ status: 'active', cancel_at_period_end: true });
      expect(readsOf(`/v1/subscriptions/${subscription.id}`)).toBe(events.length);
    });

    it('refuses a delivery whose Stripe-Signature does not hold with 400, and keeps nothing of it', async () => {
      const subscription = await subscribeWithCard(`forged-${mode}@example.com`);
      const event = eventsAbout(subscription.id)[0]!;
      expect(await fake.redeliver(event.id, webhookUrl, { secret: 'whsec_notTheEndpointsSecret' })).toBe(400);
      expect(await fake.redeliver(event.id, webhookUrl, { timestamp: Math.floor(Date.now() / 1000) - 301 })).toBe(400);
      const payload = JSON.stringify(fake.events.find((candidate) => candidate.id === event.id));
      const unsigned = await fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: payload });
      expect(unsigned.status).toBe(400);
      expect(await unsigned.json()).toMatchObject({ success: false, field: 'Stripe-Signature', message: 'Stripe-Signature: the header is missing' });
      const header = stripe.webhooks.generateTestHeaderString({ payload, secret: fake.webhookSecret });
      const tampered = await fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': header }, body: payload.replace('"livemode":false', '"livemode":true') });
      expect(tampered.status).toBe(400);
      expect(await findStripeEvent(db(), event.id)).toBeUndefined();
      // Signed as Stripe signs, the same event is taken.
      const signed = await fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': header }, body: payload });
      expect([signed.status, await signed.json()]).toEqual([200, { success: true, data: { received: true, eventId: event.id }, message: 'OK' }]);
    });
  });
}
