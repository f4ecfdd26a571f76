// /api/subscription: the plans (public); what a team may do now (check-access, any
// member); the caller's own subscription (current, details) and its Stripe-facing calls
// (control/payments.ts: plan, checkout, cards, cancel, change plan); its usage this or the
// last billing period, its invoices, one invoice with its lines and, a page at a time, what
// each line counts; metered usage recorded by platform admins (record-usage); the state of
// a checkout the billing pages return to; and Stripe's webhook (public, authenticated by
// its Stripe-Signature on the raw body).
import { RECORDED_METERS } from '@spendgate/core';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ControlPlaneServices } from '../../control/index.ts';
import { useZod } from '../../zod-provider.ts';
import { LINE_ITEMS_PAGE } from '../../control/subscriptions.ts';
import {
  answer,
  CheckoutSession,
  CheckoutStarted,
  CurrentSubscription,
  Invoice,
  InvoiceDetail,
  InvoiceLineItems,
  PaymentMethod,
  Plan,
  PlanChange,
  SetupIntentStarted,
  SubscriptionAccess,
  SubscriptionDetails,
  SubscriptionUsage,
  UsageRecord,
  WebhookReceipt,
} from '../answers.ts';
import { ok } from '../reply.ts';
import { text } from '../schemas.ts';
import { signedIn } from '../session.ts';

/** Stripe's events can be large (an invoice with many lines): up to 1 MiB. */
const WEBHOOK_BODY_LIMIT_BYTES = 1024 * 1024;

/** A payment provider's checkout session id, as its redirect appends it (e.g. cs_test_a1B2c3). */
const CheckoutParams = z.object({ sessionId: z.string().regex(/^[A-Za-z0-9_]{1,100}$/, 'must be a checkout session id (letters, digits and _, at most 100)') });

const CheckAccessBody = z.strictObject({ teamId: z.uuid('must be a team id') });
const RecordUsageBody = z.strictObject({
  teamId: z.uuid('must be a team id'),
  meter: z.enum(RECORDED_METERS, { error: `must be one of ${RECORDED_METERS.join(', ')}` }),
  quantity: z.number({ error: 'must be a whole number from 1 to 1000000000' }).int('must be a whole number from 1 to 1000000000').min(1, 'must be a whole number from 1 to 1000000000').max(1_000_000_000, 'must be a whole number from 1 to 1000000000'),
  /** The caller's idempotency key, as a Stripe meter event's `identifier`. */
  identifier: z.string().regex(/^[A-Za-z0-9._:-]{1,100}$/, 'must be 1 to 100 letters, digits, ".", "_", ":" or "-"'),
  timestamp: z.iso.datetime({ error: 'must be an ISO 8601 time in UTC, e.g. 2026-11-26T12:00:00Z' }).optional(),
  description: text(200).default(''),
});
const UsageQuery = z.object({ period: z.enum(['current', 'previous'], { error: 'must be current or previous' }).default('current') });
const InvoiceParams = z.object({ invoiceId: z.uuid('must be an invoice id') });
const LineParams = z.object({ invoiceId: z.uuid('must be an invoice id'), lineId: z.uuid('must be an invoice line id') });
const PageQuery = z.object({
  cursor: z.string().max(400, 'must be the nextCursor of a previous page').optional(),
  limit: z.coerce
    .number({ error: `must be a whole number from 1 to ${LINE_ITEMS_PAGE.max}` })
    .int(`must be a whole number from 1 to ${LINE_ITEMS_PAGE.max}`)
    .min(1, `must be a whole number from 1 to ${LINE_ITEMS_PAGE.max}`)
    .max(LINE_ITEMS_PAGE.max, `must be a whole number from 1 to ${LINE_ITEMS_PAGE.max}`)
    .optional(),
});

const PlanId = z.uuid('must be a plan id (GET /subscription/plans)');
const PaymentMethodId = z.string().regex(/^pm_\w{1,255}$/, 'must be a Stripe payment method id (pm_…)');
const PlanBody = z.strictObject({ planId: PlanId });
const CreateBody = z.strictObject({ planId: PlanId, paymentMethodId: PaymentMethodId.optional() });
const SaveCardBody = z.strictObject({ paymentMethodId: PaymentMethodId, makeDefault: z.boolean({ error: 'must be true or false' }).optional() });
const CardBody = z.strictObject({ paymentMethodId: PaymentMethodId });
const CancelBody = z.strictObject({ immediate: z.boolean({ error: 'must be true or false' }) });
const CardParams = z.object({ paymentMethodId: PaymentMethodId });

export const subscriptionRoutes =
  (services: Pick<ControlPlaneServices, 'plans' | 'payments' | 'subscriptions'>, platformAdmin: (request: FastifyRequest) => Promise<void>): FastifyPluginAsync =>
  async (app) => {
    const api = useZod(app);
    /** A POST of the caller's with a checked body: `call` gets the signed-in user's id and the body; its result is answered with `message`. */
    const postForUser = <Body extends z.ZodType, Data extends z.ZodType>(
      path: string,
      route: { summary: string; body: Body; data: Data; message?: string },
      call: (userId: string, body: z.output<Body>) => Promise<z.output<Data>>,
    ) => {
      // The answer's type is `call`'s: the schema's generic response is left unchecked here.
      const response: Record<number, z.ZodType> = { 200: answer(route.data) };
      api.post(path, { schema: { summary: route.summary, body: route.body, response } }, async (request) => ok(await call(signedIn(request).userId, request.body as z.output<Body>), route.message));
    };
    api.get('/plans', { config: { public: true }, schema: { summary: 'List subscription plans (free trial included)', response: { 200: answer(z.array(Plan)) } } }, async () =>
      ok(await services.plans.listPlans()),
    );
    const payments = services.payments;
    api.get('/current', { schema: { summary: 'Your subscription: plan, status, trial, billing period, cancellation', response: { 200: answer(CurrentSubscription) } } }, async (request) =>
      ok(await payments.current(signedIn(request).userId)),
    );
    api.get(
      '/subscription-details',
      { schema: { summary: 'Your subscription with its plan, default card and next invoice time', response: { 200: answer(SubscriptionDetails) } } },
      async (request) => ok(await payments.details(signedIn(request).userId)),
    );
    postForUser(
      '/create',
      {
        summary: 'Subscribe to a paid plan ({planId, paymentMethodId?}: the card is saved as the default first); during the trial it is the plan billed from its end, on a paused or cancelled subscription billing starts now (402 without a card)',
        body: CreateBody,
        data: CurrentSubscription,
        message: 'Subscribed',
      },
      payments.create,
    );
    postForUser(
      '/create-checkout-session',
      {
        summary: 'A Stripe Checkout Session ({planId}, mode setup) to take a card for that plan: send the browser to url; on completion the card is the default and the plan chosen',
        body: PlanBody,
        data: CheckoutStarted,
      },
      payments.createCheckoutSession,
    );
    postForUser(
      '/check-access',
      {
        summary: 'What a team may do now: its plan and status, which key kinds are served and why not, its allowances against what it uses (any member)',
        body: CheckAccessBody,
        data: SubscriptionAccess,
      },
      (userId, body) => services.subscriptions.checkAccess(userId, body.teamId),
    );
    api.post(
      '/record-usage',
      {
        preHandler: platformAdmin,
        schema: {
          summary:
            "Record a meter's quantity for a team (platform admins): {teamId, meter, quantity, identifier, timestamp?, description?}, once per identifier (201; the same again answers the record with replayed: true, 200; other usage under it is a 409), priced at the plan's fee for the meter at a moment of the current billing period and charged on that period's invoice",
          body: RecordUsageBody,
          response: { 200: answer(UsageRecord), 201: answer(UsageRecord) },
        },
      },
      async (request, reply) => {
        const { timestamp, ...usage } = request.body;
        const record = await services.subscriptions.recordUsage(signedIn(request).userId, { ...usage, ...(timestamp ? { timestamp: new Date(timestamp) } : {}) });
        return reply.code(record.replayed ? 200 : 201).send(ok(record, record.replayed ? 'Already recorded' : 'Usage recorded'));
      },
    );
    api.get(
      '/usage',
      {
        schema: {
          summary: "Your subscription's usage this billing period so far (period=current, the default; the trial while trialing) or the last invoiced one (previous), priced line by line as its invoice would be, with each team's allowances",
          querystring: UsageQuery,
          response: { 200: answer(SubscriptionUsage) },
        },
      },
      async (request) => ok(await services.subscriptions.usage(signedIn(request).userId, request.query.period)),
    );
    api.get('/billing', { schema: { summary: "Your subscription's invoices, newest period first", response: { 200: answer(z.array(Invoice)) } } }, async (request) =>
      ok(await services.subscriptions.billing(signedIn(request).userId)),
    );
    api.get(
      '/invoice/:invoiceId',
      { schema: { summary: 'One of your invoices with its lines: what each charges, what it counts and where to read it, and what the proof found', params: InvoiceParams, response: { 200: answer(InvoiceDetail) } } },
      async (request) => ok(await services.subscriptions.invoice(signedIn(request).userId, request.params.invoiceId)),
    );
    api.get(
      '/invoice/:invoiceId/lines/:lineId/items',
      {
        schema: {
          summary: "What one of your invoice's lines counts, oldest first, a page at a time (cursor = the previous page's nextCursor): its usage events, advisor insights or units",
          params: LineParams,
          querystring: PageQuery,
          response: { 200: answer(InvoiceLineItems) },
        },
      },
      async (request) => ok(await services.subscriptions.lineItems(signedIn(request).userId, request.params.invoiceId, request.params.lineId, request.query)),
    );
    api.get(
      '/checkout/:sessionId',
      { schema: { summary: 'A checkout session of yours, as Stripe has it now: open, complete or expired, paid or not (404 for any other)', params: CheckoutParams, response: { 200: answer(CheckoutSession) } } },
      async (request) => ok(await payments.checkout(signedIn(request).userId, request.params.sessionId)),
    );
    api.get('/payment-methods', { schema: { summary: 'Your saved cards, the default first', response: { 200: answer(z.array(PaymentMethod)) } } }, async (request) =>
      ok(await payments.paymentMethods(signedIn(request).userId)),
    );
    api.post(
      '/create-setup-intent',
      { schema: { summary: 'A Stripe SetupIntent (no body) for Stripe.js to collect a card; then save it with save-payment-method', response: { 200: answer(SetupIntentStarted) } } },
      async (request) => ok(await payments.createSetupIntent(signedIn(request).userId)),
    );
    postForUser(
      '/save-payment-method',
      { summary: 'Save a card ({paymentMethodId, makeDefault?}); the first card becomes the default', body: SaveCardBody, data: PaymentMethod, message: 'Payment method saved' },
      payments.savePaymentMethod,
    );
    postForUser(
      '/payment-method',
      { summary: 'Make a saved card the default ({paymentMethodId}): invoices are charged to it', body: CardBody, data: PaymentMethod, message: 'Default payment method set' },
      payments.setDefaultPaymentMethod,
    );
    api.delete(
      '/payment-method/:paymentMethodId',
      {
        schema: {
          summary: 'Remove a saved card; the newest other card becomes the default (409 for the only card of a billed subscription)',
          params: CardParams,
          response: { 200: answer(z.array(PaymentMethod)) },
        },
      },
      async (request) => ok(await payments.removePaymentMethod(signedIn(request).userId, request.params.paymentMethodId), 'Payment method removed'),
    );
    postForUser(
      '/cancel',
      {
        summary: 'Cancel ({immediate}): true ends it now and invoices the period so far; false at the end of the period (a trial: at its end)',
        body: CancelBody,
        data: CurrentSubscription,
        message: 'Subscription cancelled',
      },
      payments.cancel,
    );
    postForUser(
      '/change-plan',
      { summary: 'Move to another paid plan ({planId}) from now; the period’s plan fee is prorated', body: PlanBody, data: PlanChange, message: 'Plan changed' },
      payments.changePlan,
    );
    // The webhook reads its body as bytes: the signature is over them exactly as sent.
    await app.register(async (webhook) => {
      webhook.removeContentTypeParser('application/json');
      webhook.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
      useZod(webhook).post(
        '/webhook',
        {
          config: { public: true },
          bodyLimit: WEBHOOK_BODY_LIMIT_BYTES,
          schema: {
            summary: "Stripe's webhook endpoint: an event signed with Stripe-Signature (t=…,v1=…) is kept and processed once (400 when the signature does not hold)",
            response: { 200: answer(WebhookReceipt) },
          },
        },
        async (request) => {
          const signature = request.headers['stripe-signature'];
          return ok(await services.payments.receiveWebhook(request.body as Buffer, typeof signature === 'string' ? signature : undefined));
        },
      );
    });
  };
