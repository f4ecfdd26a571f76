// /api/subscription: the plans (public), the state of a checkout the billing pages return
// to, and Stripe's webhook (public, authenticated by its Stripe-Signature on the raw body).
import { NotFoundError } from '@spendgate/core';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { ControlPlaneServices } from '../../control/index.ts';
import { useZod } from '../../zod-provider.ts';
import { answer, CheckoutSession, Plan, WebhookReceipt } from '../answers.ts';
import { ok } from '../reply.ts';

/** Stripe's events can be large (an invoice with many lines): up to 1 MiB. */
const WEBHOOK_BODY_LIMIT_BYTES = 1024 * 1024;

/** A payment provider's checkout session id, as its redirect appends it (e.g. cs_test_a1B2c3). */
const CheckoutParams = z.object({ sessionId: z.string().regex(/^[A-Za-z0-9_]{1,100}$/, 'must be a checkout session id (letters, digits and _, at most 100)') });

export const subscriptionRoutes =
  (services: Pick<ControlPlaneServices, 'plans' | 'payments'>): FastifyPluginAsync =>
  async (app) => {
    const api = useZod(app);
    api.get('/plans', { config: { public: true }, schema: { summary: 'List subscription plans (free trial included)', response: { 200: answer(z.array(Plan)) } } }, async () =>
      ok(await services.plans.listPlans()),
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
