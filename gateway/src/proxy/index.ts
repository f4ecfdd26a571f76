// The data plane, /v1/*: authenticated by an issued key (`Authorization: Bearer` or
// `x-api-key`), errors in the provider's own shape.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { UnauthorizedError } from '../errors.ts';
import type { Principal, PrincipalService } from '../services/principals.ts';
import { type ChatRouteDeps, chatCompletionsRoutes } from './chat-completions.ts';
import { sendOpenAIError } from './openai-errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

function presentedKey(request: FastifyRequest): string | undefined {
  const authorization = request.headers.authorization;
  if (authorization?.startsWith('Bearer ')) return authorization.slice(7).trim();
  const apiKey = request.headers['x-api-key'];
  return typeof apiKey === 'string' ? apiKey.trim() : undefined;
}

export const dataPlane =
  (deps: ChatRouteDeps & { principals: PrincipalService }): FastifyPluginAsync =>
  async (app) => {
    app.setErrorHandler(sendOpenAIError);
    app.addHook('onRequest', async (request) => {
      const key = presentedKey(request);
      if (!key) throw new UnauthorizedError('Missing API key: send it as "Authorization: Bearer <key>" or "x-api-key"');
      const principal = await deps.principals.authenticate(key);
      if (!principal) throw new UnauthorizedError('Invalid API key');
      request.principal = principal;
    });
    await app.register(chatCompletionsRoutes(deps));
  };
