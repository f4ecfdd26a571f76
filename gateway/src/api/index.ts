/**
 * The control plane, /api/*: the REST API the console calls, every answer in the
 * {success, data, message} envelope. Routes need a session token (Authorization:
 * Bearer <jwt>) unless their config says `public: true`; a token that is invalid,
 * expired or older than the account's last password change answers 401, and one whose
 * email is not verified 403 (`email_not_verified`) outside the routes marked `unverified`.
 */

import { EmailNotVerifiedError, ForbiddenError, UnauthorizedError } from '@spendgate/core';
import { withAuditOrigin } from '@spendgate/store';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ControlPlaneServices } from '../control/index.ts';
import type { SessionTokens } from '../security/session-tokens.ts';
import { boundBodies } from './bodies.ts';
import { createOpenApiCollector } from './openapi.ts';
import { sendApiError } from './reply.ts';
import { advisorRoutes } from './routes/advisor.ts';
import { alertRoutes } from './routes/alerts.ts';
import { auditRoutes } from './routes/audit.ts';
import { authRoutes } from './routes/auth.ts';
import { budgetRoutes } from './routes/budgets.ts';
import { complianceRoutes } from './routes/compliance.ts';
import { contactFormRoutes } from './routes/contact-form.ts';
import { demoRoutes } from './routes/demo.ts';
import { faqRoutes } from './routes/faqs.ts';
import { forecastRoutes } from './routes/forecast.ts';
import { gpuRoutes } from './routes/gpu.ts';
import { pricingRoutes } from './routes/pricing.ts';
import { promptCaptureRoutes } from './routes/prompt-capture.ts';
import { providerRoutes } from './routes/provider.ts';
import { ssoSettingsRoutes, ssoSignInRoutes } from './routes/sso.ts';
import { subscriptionRoutes } from './routes/subscription.ts';
import { groupRoutes } from './routes/synthetic-group.ts';
import { teamRoutes } from './routes/team.ts';
import { usageRoutes } from './routes/usage.ts';
import { SESSION_EXPIRED, signedIn } from './session.ts';

export interface ApiDeps {
  sessions: SessionTokens;
  services: ControlPlaneServices;
}

export const controlPlane =
  (deps: ApiDeps): FastifyPluginAsync =>
  async (app) => {
    app.setErrorHandler(sendApiError);
    // The audit entries a request writes record where it came from.
    app.addHook('onRequest', (request, _reply, done) => withAuditOrigin({ ip: request.ip, userAgent: request.headers['user-agent']?.slice(0, 512) ?? null }, done));
    boundBodies(app);
    const openApi = createOpenApiCollector(app);

    const sessionOf = async (token: string) => {
      const claims = await deps.sessions.verify(token);
      return claims && (await deps.services.accounts.sessionUser(claims));
    };
    app.addHook('onRequest', async (request) => {
      const config = request.routeOptions.config;
      const header = request.headers.authorization;
      const token = header?.startsWith('Bearer ') ? header.slice(7) : undefined;
      if (config.public) {
        if (config.optionalSession && token) request.user = await sessionOf(token);
        return;
      }
      if (token === undefined) throw new UnauthorizedError(config.missingSessionMessage ?? SESSION_EXPIRED);
      const user = await sessionOf(token);
      if (!user) throw new UnauthorizedError(SESSION_EXPIRED);
      if (!user.emailVerified && !config.unverified) throw new EmailNotVerifiedError();
      request.user = user;
    });

    // The fresh-read rule (store's read-replicas.ts): after a change, its author's reads go to the primary,
    // on every gateway once the reply is sent (the stamp is shared before it).
    app.addHook('onSend', async (request, reply, payload) => {
      if (request.user && request.method !== 'GET' && request.method !== 'HEAD' && reply.statusCode < 400) await deps.services.usage.wrote(request.user.userId);
      return payload;
    });

    const platformAdmin = async (request: FastifyRequest) => {
      if (!(await deps.services.accounts.isPlatformAdmin(signedIn(request).userId))) throw new ForbiddenError('Only platform admins can do this');
    };

    await app.register(subscriptionRoutes(deps.services, platformAdmin), { prefix: '/subscription' });
    await app.register(faqRoutes(deps.services, platformAdmin), { prefix: '/admin/faqs' });
    await app.register(contactFormRoutes(deps.services), { prefix: '/contact-form' });
    await app.register(authRoutes(deps.services), { prefix: '/auth' });
    await app.register(ssoSignInRoutes(deps.services), { prefix: '/auth/sso' });
    await app.register(ssoSettingsRoutes(deps.services), { prefix: '/sso' });
    await app.register(teamRoutes(deps.services), { prefix: '/team' });
    await app.register(complianceRoutes(deps.services), { prefix: '/teams' });
    await app.register(providerRoutes(deps.services), { prefix: '/provider' });
    await app.register(groupRoutes(deps.services), { prefix: '/synthetic-group' });
    await app.register(usageRoutes(deps.services), { prefix: '/usage' });
    await app.register(forecastRoutes(deps.services), { prefix: '/usage/cost/forecast' });
    await app.register(advisorRoutes(deps.services), { prefix: '/usage/ai-advisor' });
    await app.register(demoRoutes(deps.services), { prefix: '/demo' });
    await app.register(auditRoutes(deps.services), { prefix: '/audit' });
    await app.register(pricingRoutes(deps.services), { prefix: '/pricing' });
    await app.register(budgetRoutes(deps.services), { prefix: '/budgets' });
    await app.register(promptCaptureRoutes(deps.services));
    await app.register(alertRoutes(deps.services), { prefix: '/alerts' });
    await app.register(gpuRoutes(deps.services), { prefix: '/gpu' });
    openApi.serve('/docs');
  };
