// /api/subscription: the plans (public), and the state of a checkout the billing pages
// return to. Subscriptions and billing come with billing.
import { NotFoundError } from '@spendgate/core';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { ControlPlaneServices } from '../../control/index.ts';
import { useZod } from '../../zod-provider.ts';
import { answer, CheckoutSession, Plan } from '../answers.ts';
import { ok } from '../reply.ts';

/** A payment provider's checkout session id, as its redirect appends it (e.g. cs_test_a1B2c3). */
const CheckoutParams = z.object({ sessionId: z.string().regex(/^[A-Za-z0-9_]{1,100}$/, 'must be a checkout session id (letters, digits and _, at most 100)') });

export const subscriptionRoutes =
  (services: Pick<ControlPlaneServices, 'plans'>): FastifyPluginAsync =>
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
  };
