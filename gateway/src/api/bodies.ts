/**
 * The bodies the control plane reads: JSON parsed as the data plane parses it
 * (json-body.ts: nesting at most 64 deep, no prototype keys), at most 64 KiB per request
 * unless a route sets its own `bodyLimit`. Past the limit the answer is 413.
 */
import type { FastifyInstance } from 'fastify';
import { parseJsonBody } from '../json-body.ts';

/** The largest body a control-plane route takes by default. */
export const API_BODY_LIMIT_BYTES = 64 * 1024;

/** Installs the JSON parser and the default body limit on every route added after this call. */
export function boundBodies(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    route.bodyLimit ??= API_BODY_LIMIT_BYTES;
  });
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
