/**
 * The data plane, /v1/*, served on node:http directly: the hot path pays for no router
 * framework, hooks, request objects or per-request logger (Fastify serves /api and the
 * console; app.ts hands /v1 here). Per request: authenticate the issued key
 * (`Authorization: Bearer` or `x-api-key`), read the body (JSON, at most 20 MiB — 413
 * past it — nested at most 64 deep), check it against the route's schema, and run the
 * route. Errors are answered in the caller's wire format (OpenAI or Anthropic): 4xx
 * naming what is wrong, 5xx never for bad input.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PriceCatalog } from '@spendgate/core';
import { AppError, NotFoundError, UnauthorizedError, UpstreamError, ValidationError } from '@spendgate/core';
import type { FastifyBaseLogger } from 'fastify';
import { parseJsonBody } from '../json-body.ts';
import { type WireFormatId, wireFormats } from '../providers/formats/index.ts';
import { validated } from '../zod-provider.ts';
import type { PrincipalService } from './principals.ts';
import type { RelayDeps } from './relay.ts';
import { sendJson } from './respond.ts';
import { type DataPlaneRoute, dataPlaneRoutes } from './routes.ts';

export const DATA_PLANE_PREFIX = '/v1/';

/** Largest request body accepted. */
export const BODY_LIMIT_BYTES = 20 * 1024 * 1024;

export interface DataPlaneHandler {
  (request: IncomingMessage, response: ServerResponse): void;
  /**
   * Resolves once every request under way has ended — its usage handed to metering — or
   * after `deadlineMs`: closing waits for it before the meter's last flush.
   */
  idle(deadlineMs: number): Promise<void>;
}

function presentedKey(request: IncomingMessage): string | undefined {
  const authorization = request.headers.authorization;
  if (authorization?.startsWith('Bearer ')) return authorization.slice(7).trim();
  const apiKey = request.headers['x-api-key'];
  return typeof apiKey === 'string' ? apiKey.trim() : undefined;
}

const isJson = (contentType: string | undefined) => /^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(contentType ?? '');

const NO_BYTES = Buffer.alloc(0);

/** The route label of a request to no route. */
const UNKNOWN_ROUTE = 'unknown';

const tooLarge = () => new AppError(413, 'body_too_large', 'Request body is too large');

/** The body's bytes; past the limit, refused (the rest is discarded as it arrives). */
function readBody(request: IncomingMessage): Promise<Buffer> {
  if (Number(request.headers['content-length']) > BODY_LIMIT_BYTES) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    const onData = (part: Buffer) => {
      size += part.length;
      if (size <= BODY_LIMIT_BYTES) return parts.push(part);
      request.off('data', onData).resume();
      reject(tooLarge());
    };
    request.on('data', onData);
    request.once('end', () => resolve(parts.length === 1 ? parts[0]! : Buffer.concat(parts)));
    request.once('error', reject);
  });
}

/** The body's bytes and their JSON (undefined when empty); a non-JSON or malformed body is refused. */
async function readJsonBody(request: IncomingMessage): Promise<{ bytes: Buffer; json: unknown }> {
  const bytes = await readBody(request);
  if (bytes.length === 0) return { bytes, json: undefined };
  const contentType = request.headers['content-type'];
  if (!isJson(contentType)) throw new AppError(415, 'unsupported_media_type', `Unsupported Media Type: ${contentType ?? 'none'} (send application/json)`);
  return { bytes, json: parseJsonBody(bytes) };
}

export function dataPlane(deps: RelayDeps & { principals: PrincipalService; catalog: PriceCatalog; log: FastifyBaseLogger }): DataPlaneHandler {
  const routes = dataPlaneRoutes(deps);

  const answerError = (error: unknown, route: DataPlaneRoute | undefined, format: WireFormatId, response: ServerResponse) => {
    const wire = wireFormats[format];
    if (response.headersSent) {
      // Too late to answer: the stream has started; cut it.
      response.destroy();
      return;
    }
    if (error instanceof AppError) {
      // A provider's failure was recorded (and observed) by metering; anything else the gateway refused itself.
      if (!(error instanceof UpstreamError)) deps.observer?.requestRefused(route?.endpoint ?? UNKNOWN_ROUTE, error.statusCode, error.code);
      const param = error instanceof ValidationError ? error.field : null;
      return sendJson(response, error.statusCode, wire.errorBody(error.statusCode, error.message, error.code, param), error.headers);
    }
    const requestId = randomUUID();
    deps.log.error({ err: error, requestId }, 'unexpected error on the data plane');
    deps.observer?.requestRefused(route?.endpoint ?? UNKNOWN_ROUTE, 500, 'internal_error');
    return sendJson(response, 500, wire.errorBody(500, `Internal error (request ${requestId})`, 'internal_error'));
  };

  const serve = async (request: IncomingMessage, response: ServerResponse, route: DataPlaneRoute | undefined) => {
    if (!route) {
      request.resume();
      throw new NotFoundError(`Route ${request.method} ${request.url}`);
    }
    const key = presentedKey(request);
    if (!key) throw new UnauthorizedError('Missing API key: send it as "Authorization: Bearer <key>" or "x-api-key"');
    const principal = await deps.principals.authenticate(key);
    if (!principal) throw new UnauthorizedError('Invalid API key');
    let body: unknown;
    let bodyBytes: Buffer = NO_BYTES;
    if (route.body) {
      const read = await readJsonBody(request);
      const checked = validated(route.body, read.json, 'body');
      if ('error' in checked) throw checked.error;
      body = checked.value;
      bodyBytes = read.bytes;
    } else {
      request.resume();
    }
    await route.handle({ principal, body, bodyBytes, request, response });
  };

  /** Requests under way, until their answer (or stream) has ended and been metered. */
  const running = new Set<Promise<void>>();
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    const url = request.url ?? DATA_PLANE_PREFIX;
    const queryAt = url.indexOf('?');
    const route = routes.get(`${request.method} ${url.slice(DATA_PLANE_PREFIX.length - 1, queryAt === -1 ? undefined : queryAt)}`);
    // Without a route, errors are answered in the format its SDK would read.
    const format = route?.format ?? (request.headers['anthropic-version'] ? 'anthropic' : 'openai');
    const work: Promise<void> = serve(request, response, route)
      .catch((error: unknown) => answerError(error, route, format, response))
      .finally(() => running.delete(work));
    running.add(work);
  };
  handler.idle = async (deadlineMs: number) => {
    const deadline = Date.now() + deadlineMs;
    while (running.size > 0 && Date.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, deadline - Date.now());
      });
      await Promise.race([Promise.all(running), late]);
      clearTimeout(timer);
    }
  };
  return handler;
}
