// /api/subscription: the plans (public); what a team may do now (check-access, any
// member); the caller's own subscription's usage this or the last billing period, its
// invoices, one invoice with its lines and, a page at a time, what each line counts; the
// state of a checkout the billing pages return to; and Stripe's webhook (public,
// authenticated by its Stripe-Signature on the raw body).
import { NotFoundError } from '@spendgate/core';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { ControlPlaneServices } from '../../control/index.ts';
import { useZod } from '../../zod-provider.ts';
import { LINE_ITEMS_PAGE } from '../../control/subscriptions.ts';
import { answer, CheckoutSession, Invoice, InvoiceDetail, InvoiceLineItems, Plan, SubscriptionAccess, SubscriptionUsage, WebhookReceipt } from '../answers.ts';
import { ok } from '../reply.ts';
import { signedIn } from '../session.ts';

/** Stripe's events can be large (an invoice with many lines): up to 1 MiB. */
const WEBHOOK_BODY_LIMIT_BYTES = 1024 * 1024;

/** A payment provider's checkout session id, as its redirect appends it (e.g. cs_test_a1B2c3). */
const CheckoutParams = z.object({ sessionId: z.string().regex(/^[A-Za-z0-9_]{1,100}$/, 'must be a checkout session id (letters, digits and _, at most 100)') });

const CheckAccessBody = z.strictObject({ teamId: z.uuid('must be a team id') });
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

export const subscriptionRoutes =
  (services: Pick<ControlPlaneServices, 'plans' | 'payments' | 'subscriptions'>): FastifyPluginAsync =>
  async (app) => {
    const api = useZod(app);
    api.get('/plans', { config: { public: true }, schema: { summary: 'List subscription plans (free trial included)', response: { 200: answer(z.array(Plan)) } } }, async () =>
      ok(await services.plans.listPlans()),
    );
    api.post(
      '/check-access',
      {
        schema: {
          summary: 'What a team may do now: its plan and status, which key kinds are served and why not, its allowances against what it uses (any member)',
          body: CheckAccessBody,
          response: { 200: answer(SubscriptionAccess) },
        },
      },
      async (request) => ok(await services.subscriptions.checkAccess(signedIn(request).userId, request.body.teamId)),
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
      { schema: { summary: 'A checkout session of yours: open, complete or expired, paid or not (404 for any other)', params: CheckoutParams, response: { 200: answer(CheckoutSession) } } },
      async () => {
        // Checkouts are opened by a payment provider, and Spendgate has none yet: no
        // session exists, so none is yours, and nothing was charged.
        throw new NotFoundError('Checkout session');
      },
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
