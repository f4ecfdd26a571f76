// /api/subscription: the plans (public). Subscriptions and billing come with billing.
import type { FastifyPluginAsync } from 'fastify';
import type { ControlPlaneServices } from '../../services/index.ts';
import { ok } from '../envelope.ts';

export const subscriptionRoutes =
  (services: Pick<ControlPlaneServices, 'plans'>): FastifyPluginAsync =>
  async (app) => {
    app.get('/plans', { config: { public: true }, schema: { summary: 'List subscription plans (free trial included)' } }, async () =>
      ok(await services.plans.listPlans()),
    );
  };
