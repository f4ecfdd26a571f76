// The official `stripe` SDK against the Stripe fake: what Spendgate calls answers as Stripe
// answers it (objects, lists, errors, idempotent replays, proration amounts, webhooks signed
// so that `stripe.webhooks.constructEvent` accepts them).
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeStripe, parseStripeForm, startFakeStripe } from './stripe.ts';
import { checkAgainstOpenApi, type OpenApiDocument } from './stripe-openapi.ts';

const DAY = 86_400;

describe('the Stripe fake, through the stripe SDK', () => {
  let fake: FakeStripe;
  let stripe: Stripe;
  let receiver: Server;
  let receiverUrl: string;
  const received: Stripe.Event[] = [];
  const refused: string[] = [];

  beforeAll(async () => {
    fake = await startFakeStripe();
    stripe = new Stripe(fake.apiKey, { ...fake.sdkOptions, maxNetworkRetries: 0 });
    receiver = createServer(async (request, response) => {
      const parts: Buffer[] = [];
      for await (const part of request) parts.push(part as Buffer);
      try {
        received.push(stripe.webhooks.constructEvent(Buffer.concat(parts), String(request.headers['stripe-signature']), fake.webhookSecret));
        response.writeHead(200).end();
      } catch (error) {
        refused.push((error as Error).message);
        response.writeHead(400).end();
      }
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhook`;
    fake.forwardTo(receiverUrl);
  });
  afterAll(async () => {
    await fake?.close();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  const planPrice = (lookupKey: string, pence: number, name = 'Growth') =>
    stripe.prices.create({ currency: 'gbp', unit_amount: pence, recurring: { interval: 'month' }, product_data: { name }, lookup_key: lookupKey });

  it("parses Stripe's bracket syntax: nested objects, indexed and empty-bracket arrays", () => {
    expect(parseStripeForm('items[0][price]=p1&items[1][price]=p2&items[1][quantity]=3&expand[]=a&expand[]=b&metadata[team]=t1&email=')).toEqual({
      items: [{ price: 'p1' }, { price: 'p2', quantity: '3' }],
      expand: ['a', 'b'],
      metadata: { team: 't1' },
      email: '',
    });
  });

  it('creates, reads and updates a customer; Stripe errors come back as the SDK error classes', async () => {
    const customer = await stripe.customers.create({ email: 'ada@example.com', name: 'Ada', metadata: { teamId: 't1' } });
    expect(customer).toMatchObject({ object: 'customer', email: 'ada@example.com', livemode: false, metadata: { teamId: 't1' }, invoice_settings: { default_payment_method: null } });
    expect(customer.id).toMatch(/^cus_\w{14}$/);
    expect(await stripe.customers.retrieve(customer.id)).toEqual(customer);
    expect((await stripe.customers.update(customer.id, { name: 'Ada L.' })).name).toBe('Ada L.');

    const missing = await stripe.customers.retrieve('cus_nothing').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(missing).toMatchObject({ statusCode: 404, code: 'resource_missing', param: 'id', message: "No such customer: 'cus_nothing'" });

    const unknown = await stripe.customers.create({ colour: 'red' } as Stripe.CustomerCreateParams).catch((error: unknown) => error);
    expect(unknown).toMatchObject({ statusCode: 400, code: 'parameter_unknown', param: 'colour', message: 'Received unknown parameter: colour' });

    const wrongKey = await new Stripe('sk_test_wrong0000000000000000000000', { ...fake.sdkOptions, maxNetworkRetries: 0 }).customers.create({}).catch((error: unknown) => error);
    expect(wrongKey).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
  });

  it('replays an idempotent request with the same parameters, and refuses the key with others', async () => {
    const first = await stripe.customers.create({ email: 'same@example.com' }, { idempotencyKey: 'customer:team-1' });
    const again = await stripe.customers.create({ email: 'same@example.com' }, { idempotencyKey: 'customer:team-1' });
    expect(again.id).toBe(first.id);
    expect(again.lastResponse.headers['idempotent-replayed']).toBe('true');
    const other = await stripe.customers.create({ email: 'other@example.com' }, { idempotencyKey: 'customer:team-1' }).catch((error: unknown) => error);
    expect(other).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect(other).toMatchObject({ statusCode: 400, type: 'StripeIdempotencyError' });
    // A refusal before the request ran is not kept: the same key works once the request is right.
    const refusedFirst = await stripe.customers.create({ email: 'x@example.com', colour: 'red' } as Stripe.CustomerCreateParams, { idempotencyKey: 'k2' }).catch((error: unknown) => error);
    expect(refusedFirst).toMatchObject({ code: 'parameter_unknown' });
    expect((await stripe.customers.create({ email: 'x@example.com' }, { idempotencyKey: 'k2' })).email).toBe('x@example.com');
  });

  it('finds prices by lookup key; a taken key is refused unless transferred', async () => {
    const price = await planPrice('growth_monthly', 4900);
    expect(price).toMatchObject({ object: 'price', unit_amount: 4900, currency: 'gbp', type: 'recurring', recurring: { interval: 'month' }, lookup_key: 'growth_monthly' });
    const found = await stripe.prices.list({ lookup_keys: ['growth_monthly'], expand: ['data.product'] });
    expect(found).toMatchObject({ object: 'list', has_more: false, url: '/v1/prices' });
    expect(found.data.map((each) => each.id)).toEqual([price.id]);
    expect((found.data[0]!.product as Stripe.Product).name).toBe('Growth');
    await expect(planPrice('growth_monthly', 5000)).rejects.toMatchObject({ param: 'lookup_key' });
  });

  it('completes a subscription Checkout Session with a card: customer, subscription, paid invoice, and its events in order', async () => {
    const price = await planPrice('developers_monthly', 1900, 'Developers');
    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      customer_email: 'buyer@example.com',
      line_items: [{ price: price.id, quantity: 1 }],
      success_url: 'http://console.test/dashboard/billing/success?session_id={CHECKOUT_SESSION_ID}',
      cancel_url: 'http://console.test/dashboard/billing/cancel',
      client_reference_id: 'account-1',
      subscription_data: { metadata: { accountId: 'account-1' } },
    });
    expect(session).toMatchObject({ object: 'checkout.session', status: 'open', payment_status: 'unpaid', mode: 'subscription', amount_total: 1900, currency: 'gbp' });
    expect(session.id).toMatch(/^cs_test_\w+$/);

    // The hosted page: a form that pays with the chosen test card and sends the buyer to success_url.
    const page = await fetch(session.url!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Subscribe — £19.00 per month');
    const paid = await fetch(session.url!, { method: 'POST', body: new URLSearchParams({ card: 'pm_card_visa' }), redirect: 'manual' });
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(`http://console.test/dashboard/billing/success?session_id=${session.id}`);

    const done = await stripe.checkout.sessions.retrieve(session.id, { expand: ['subscription', 'invoice'] });
    expect(done).toMatchObject({ status: 'complete', payment_status: 'paid', customer_details: { email: 'buyer@example.com' } });
    const subscription = done.subscription as Stripe.Subscription;
    expect(subscription).toMatchObject({ status: 'active', metadata: { accountId: 'account-1' }, customer: done.customer, cancel_at_period_end: false });
    expect(subscription.items.data[0]).toMatchObject({ price: { id: price.id }, quantity: 1 });
    expect(done.invoice).toMatchObject({ status: 'paid', amount_paid: 1900, billing_reason: 'subscription_create', total: 1900 });

    await fake.settled();
    const types = received.filter((event) => [done.customer, subscription.id, session.id].some((id) => JSON.stringify(event.data.object).includes(String(id)))).map((event) => event.type);
    expect(types).toEqual([
      'customer.created',
      'payment_method.attached',
      'customer.subscription.created',
      'invoice.created',
      'invoice.finalized',
      'invoice.paid',
      'invoice.payment_succeeded',
      'customer.subscription.updated',
      'checkout.session.completed',
    ]);
    expect(refused).toEqual([]);
  });

  it('saves a card in a setup Checkout Session and through a SetupIntent; declined cards are refused; default and detach', async () => {
    const customer = await stripe.customers.create({ email: 'cards@example.com' });
    const setup = await stripe.checkout.sessions.create({ mode: 'setup', customer: customer.id, currency: 'gbp', success_url: 'http://console.test/ok' });
    expect(setup).toMatchObject({ payment_status: 'no_payment_required', status: 'open' });
    fake.completeCheckout(setup.id, 'pm_card_mastercard');
    const session = await stripe.checkout.sessions.retrieve(setup.id, { expand: ['setup_intent.payment_method'] });
    const saved = (session.setup_intent as Stripe.SetupIntent).payment_method as Stripe.PaymentMethod;
    expect(saved).toMatchObject({ type: 'card', customer: customer.id, card: { brand: 'mastercard', last4: '4444' } });

    const intent = await stripe.setupIntents.create({ customer: customer.id, allowed_payment_method_types: ['card'], usage: 'off_session' });
    expect(intent).toMatchObject({ status: 'requires_payment_method', client_secret: expect.stringMatching(new RegExp(`^${intent.id}_secret_`)) });
    const declined = await stripe.setupIntents.confirm(intent.id, { payment_method: 'pm_card_chargeDeclined' }).catch((error: unknown) => error);
    expect(declined).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(declined).toMatchObject({ statusCode: 402, code: 'card_declined', decline_code: 'generic_decline' });
    const confirmed = await stripe.setupIntents.confirm(intent.id, { payment_method: 'pm_card_visa' });
    expect(confirmed.status).toBe('succeeded');

    const listed = await stripe.customers.listPaymentMethods(customer.id, { type: 'card' });
    expect(listed.data.map((method) => method.card?.last4)).toEqual(['4242', '4444']);
    const visa = String(confirmed.payment_method);
    const updated = await stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: visa } });
    expect(updated.invoice_settings.default_payment_method).toBe(visa);
    await expect(stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: 'pm_elsewhere' } })).rejects.toMatchObject({ code: 'resource_missing', param: 'invoice_settings[default_payment_method]' });

    await stripe.paymentMethods.detach(visa);
    expect((await stripe.customers.retrieve(customer.id) as Stripe.Customer).invoice_settings.default_payment_method).toBeNull();
    expect((await stripe.customers.listPaymentMethods(customer.id)).data.map((method) => method.id)).toEqual([saved.id]);
  });

  it('prorates a price change to the second, invoices it at once with always_invoice, and cancels at period end or at once', async () => {
    const developers = await planPrice('dev_for_proration', 1900, 'Developers');
    const growth = await planPrice('growth_for_proration', 4900, 'Growth');
    const customer = await stripe.customers.create({ email: 'prorate@example.com', payment_method: 'pm_card_visa' });
    const card = (await stripe.customers.listPaymentMethods(customer.id)).data[0]!.id;
    const subscription = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: developers.id }], default_payment_method: card, payment_behavior: 'error_if_incomplete' });
    expect(subscription.status).toBe('active');
    const { current_period_start: start, current_period_end: end } = subscription.items.data[0]!;

    const at = start + 10 * DAY;
    const changed = await stripe.subscriptions.update(subscription.id, { items: [{ id: subscription.items.data[0]!.id, price: growth.id }], proration_behavior: 'always_invoice', proration_date: at });
    expect(changed.items.data[0]!.price.id).toBe(growth.id);
    const invoice = await stripe.invoices.retrieve(String(changed.latest_invoice));
    const credit = -Math.round((1900 * (end - at)) / (end - start));
    const charge = Math.round((4900 * (end - at)) / (end - start));
    expect(invoice.lines.data.map((line) => line.amount)).toEqual([credit, charge]);
    expect(invoice).toMatchObject({ status: 'paid', billing_reason: 'subscription_update', total: credit + charge, amount_paid: credit + charge });
    expect(invoice.lines.data[0]!.description).toMatch(/^Unused time on Developers after /);

    const ending = await stripe.subscriptions.update(subscription.id, { cancel_at_period_end: true });
    expect(ending).toMatchObject({ status: 'active', cancel_at_period_end: true, cancel_at: end });
    await fake.advanceClock(end - fake.now() + 1);
    expect(await stripe.subscriptions.retrieve(subscription.id)).toMatchObject({ status: 'canceled', ended_at: end });

    const other = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: growth.id }], default_payment_method: card });
    const cancelled = await stripe.subscriptions.cancel(other.id);
    expect(cancelled).toMatchObject({ status: 'canceled', canceled_at: fake.now(), ended_at: fake.now() });
    await expect(stripe.subscriptions.cancel(other.id)).rejects.toMatchObject({ code: 'resource_missing' });
  });

  it('renews at period end with a draft that Stripe finalizes an hour later, taking the pending invoice items, and charges it', async () => {
    const price = await planPrice('renewal_monthly', 4900);
    const customer = await stripe.customers.create({ email: 'renew@example.com', payment_method: 'pm_card_visa' });
    const card = (await stripe.customers.listPaymentMethods(customer.id)).data[0]!.id;
    const subscription = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], default_payment_method: card });
    const end = subscription.items.data[0]!.current_period_end;
    await stripe.invoiceItems.create({ customer: customer.id, amount: 1234, currency: 'gbp', description: 'Optimised uplift', subscription: subscription.id }, { idempotencyKey: 'line:renew' });
    await fake.advanceClock(end - fake.now());
    const draft = (await stripe.invoices.list({ subscription: subscription.id, status: 'draft' })).data[0]!;
    expect(draft).toMatchObject({ billing_reason: 'subscription_cycle', total: 4900 + 1234, automatically_finalizes_at: end + 3600 });
    // Within the hour a line may still be added to the draft.
    await stripe.invoiceItems.create({ customer: customer.id, invoice: draft.id, amount: 66, currency: 'gbp', description: 'Advisor insights' });
    await fake.advanceClock(3600);
    expect(await stripe.invoices.retrieve(draft.id)).toMatchObject({ status: 'paid', amount_paid: 4900 + 1234 + 66 });
    expect((await stripe.subscriptions.retrieve(subscription.id)).items.data[0]!.current_period_start).toBe(end);
  });

  it('invoices exact lines on a one-off invoice: draft, finalize, pay; a failing card leaves it open; void', async () => {
    const customer = await stripe.customers.create({ email: 'lines@example.com', payment_method: 'pm_card_visa' });
    const card = (await stripe.customers.listPaymentMethods(customer.id)).data[0]!.id;
    await stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: card } });
    const invoice = await stripe.invoices.create({ customer: customer.id, description: 'Spendgate, November 2026', metadata: { invoiceId: 'inv-1' } }, { idempotencyKey: 'invoice:team-1:2026-11' });
    for (const [amount, description] of [[4900, 'Growth plan'], [1537, 'Optimised uplift'], [-250, 'Credit']] as const) {
      await stripe.invoiceItems.create({ customer: customer.id, invoice: invoice.id, amount, currency: 'gbp', description }, { idempotencyKey: `line:team-1:2026-11:${description}` });
    }
    const finalized = await stripe.invoices.finalizeInvoice(invoice.id);
    expect(finalized).toMatchObject({ status: 'open', total: 6187, amount_due: 6187, number: expect.stringMatching(/^[0-9A-F]{8}-\d{4}$/) });
    expect(await stripe.invoices.pay(invoice.id)).toMatchObject({ status: 'paid', amount_paid: 6187, amount_remaining: 0 });
    await expect(stripe.invoiceItems.create({ customer: customer.id, invoice: invoice.id, amount: 1, currency: 'gbp' })).rejects.toMatchObject({ code: 'invoice_not_editable' });

    const failing = await stripe.customers.create({ email: 'fails@example.com', payment_method: 'pm_card_chargeCustomerFail' });
    const failingCard = (await stripe.customers.listPaymentMethods(failing.id)).data[0]!.id;
    const unpaid = await stripe.invoices.create({ customer: failing.id, default_payment_method: failingCard });
    await stripe.invoiceItems.create({ customer: failing.id, invoice: unpaid.id, amount: 500, currency: 'gbp' });
    await expect(stripe.invoices.pay(unpaid.id)).rejects.toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(await stripe.invoices.retrieve(unpaid.id)).toMatchObject({ status: 'open', attempt_count: 1, amount_remaining: 500 });
    expect(await stripe.invoices.voidInvoice(unpaid.id)).toMatchObject({ status: 'void' });
  });

  it('signs webhooks as Stripe does: constructEvent accepts each, and refuses a wrong secret or an old timestamp', async () => {
    await fake.settled();
    expect(received.length).toBeGreaterThan(20);
    expect(received.length).toBe(fake.events.length);
    expect(refused).toEqual([]);
    const event = fake.events.at(-1)!;
    expect(await fake.redeliver(event.id, receiverUrl, { secret: 'whsec_wrong' })).toBe(400);
    expect(await fake.redeliver(event.id, receiverUrl, { timestamp: Math.floor(Date.now() / 1000) - 301 })).toBe(400);
    expect(refused).toEqual([expect.stringContaining('No signatures found matching the expected signature'), expect.stringContaining('Timestamp outside the tolerance zone')]);
    expect((await stripe.events.retrieve(event.id)).id).toBe(event.id);
  });

  // Stripe's published OpenAPI description (github.com/stripe/openapi, openapi/spec3.json) is
  // not kept in this repository: STRIPE_OPENAPI_SPEC names a local copy (JSON), and every answer
  // the tests above received is checked against its schema for that path, method and status.
  it.skipIf(!process.env.STRIPE_OPENAPI_SPEC)("answers what Stripe's OpenAPI description allows for each path, method and status", async () => {
    const spec = JSON.parse(await readFile(process.env.STRIPE_OPENAPI_SPEC!, 'utf8')) as OpenApiDocument;
    expect(fake.answers.length).toBeGreaterThan(50);
    expect(checkAgainstOpenApi(spec, fake.answers)).toEqual([]);
  });
});

