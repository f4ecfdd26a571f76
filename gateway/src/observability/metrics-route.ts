/**
 * GET /metrics: the Prometheus scrape, for the operator's token only (`Authorization:
 * Bearer <METRICS_TOKEN>`; 401 without it or with another). Without METRICS_TOKEN the route
 * does not exist (404) and nothing is counted.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { PrometheusMetrics } from './prometheus.ts';

const digest = (text: string) => createHash('sha256').update(text).digest();

export function registerMetricsRoute(app: FastifyInstance, metrics: PrometheusMetrics, token: string): void {
  const expected = digest(token);
  app.get('/metrics', async (request, reply) => {
    const authorization = request.headers.authorization;
    const presented = authorization?.startsWith('Bearer ') ? authorization.slice(7).trim() : '';
    // Compared as digests: the same length whatever was sent, in constant time.
    if (!timingSafeEqual(digest(presented), expected)) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer realm="metrics"')
        .send({ success: false, data: null, message: 'Send the metrics token as "Authorization: Bearer <METRICS_TOKEN>"', code: 'unauthorized', requestId: request.id });
    }
    const { contentType, text } = await metrics.scrape();
    return reply.header('cache-control', 'no-store').type(contentType).send(text);
  });
}
