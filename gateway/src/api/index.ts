// The control plane, /api/*: the REST API the console calls. Sign-in routes are open;
// everything else needs a session token (Authorization: Bearer <jwt>).
import type { FastifyPluginAsync } from 'fastify';
import { UnauthorizedError } from '../errors.ts';
import type { SessionClaims, SessionTokens } from '../security/session-tokens.ts';
import type { createAccountService } from '../services/accounts.ts';
import type { TenancyService } from '../services/tenancy.ts';
import type { createUsageService } from '../services/usage.ts';
import { sendApiError } from './envelope.ts';
import { authRoutes } from './routes/auth.ts';
import { groupRoutes } from './routes/synthetic-group.ts';
import { providerRoutes } from './routes/provider.ts';
import { teamRoutes } from './routes/team.ts';
import { usageRoutes } from './routes/usage.ts';

declare module 'fastify' {
  interface FastifyRequest {
    user?: SessionClaims;
  }
}

export interface ApiDeps {
  sessions: SessionTokens;
  accounts: ReturnType<typeof createAccountService>;
  tenancy: TenancyService;
  usage: ReturnType<typeof createUsageService>;
}

export const controlPlane =
  (deps: ApiDeps): FastifyPluginAsync =>
  async (app) => {
    app.setErrorHandler(sendApiError);
    await app.register(authRoutes(deps), { prefix: '/auth' });
    await app.register(async (signedIn) => {
      signedIn.addHook('onRequest', async (request) => {
        const header = request.headers.authorization;
        const user = header?.startsWith('Bearer ') ? await deps.sessions.verify(header.slice(7)) : undefined;
        if (!user) throw new UnauthorizedError('Session expired. Please login again.');
        request.user = user;
      });
      await signedIn.register(teamRoutes(deps), { prefix: '/team' });
      await signedIn.register(providerRoutes(deps), { prefix: '/provider' });
      await signedIn.register(groupRoutes(deps), { prefix: '/synthetic-group' });
      await signedIn.register(usageRoutes(deps), { prefix: '/usage' });
    });
  };
