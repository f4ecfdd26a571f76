// The data plane, /v1/*: authenticated by an issued key (`Authorization: Bearer` or
// `x-api-key`); errors answered in the caller's wire format (OpenAI or Anthropic).
import type { PriceCatalog } from '@spendgate/core';
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, UnauthorizedError, ValidationError } from '../errors.ts';
import { wireFormats } from '../providers/formats/index.ts';
import type { Principal, PrincipalService } from '../services/principals.ts';
import type { RelayDeps } from './relay.ts';
import { dataPlaneRoutes } from './routes.ts';

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

function sendDataPlaneError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  const format = wireFormats[request.routeOptions.config?.format ?? 'openai'];
  if (error instanceof AppError) {
    const param = error instanceof ValidationError ? error.field : null;
    return reply.code(error.statusCode).headers(error.headers).send(format.errorBody(error.statusCode, error.message, error.code, param));
  }
  const statusCode = (error as FastifyError).statusCode;
  if (statusCode && statusCode >= 400 && statusCode < 500) {
    return reply.code(statusCode).send(format.errorBody(statusCode, error.message, 'invalid_request'));
  }
  request.log.error({ err: error }, 'unexpected error on the data plane');
  return reply.code(500).send(format.errorBody(500, `Internal error (request ${request.id})`, 'internal_error'));
}

export const dataPlane =
  (deps: RelayDeps & { principals: PrincipalService; catalog: PriceCatalog }): FastifyPluginAsync =>
  async (app) => {
    app.setErrorHandler(sendDataPlaneError);
    app.addHook('onRequest', async (request) => {
      const key = presentedKey(request);
      if (!key) throw new UnauthorizedError('Missing API key: send it as "Authorization: Bearer <key>" or "x-api-key"');
      const principal = await deps.principals.authenticate(key);
      if (!principal) throw new UnauthorizedError('Invalid API key');
      request.principal = principal;
    });
    await app.register(dataPlaneRoutes(deps));
  };
