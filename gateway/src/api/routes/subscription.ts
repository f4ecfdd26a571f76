// /api/subscription: the plans (public). Subscriptions and billing come with billing.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { ControlPlaneServices } from '../../control/index.ts';
import { useZod } from '../../zod-provider.ts';
import { answer, Plan } from '../answers.ts';
import { ok } from '../reply.ts';

export const subscriptionRoutes =
  (services: Pick<ControlPlaneServices, 'plans'>): FastifyPluginAsync =>
  async (app) => {
    useZod(app).get('/plans', { config: { public: true }, schema: { summary: 'List subscription plans (free trial included)', response: { 200: answer(z.array(Plan)) } } }, async () =>
      ok(await services.plans.listPlans()),
    );
  };
