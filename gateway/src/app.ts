/**
 * buildApp: the whole HTTP surface as a Fastify instance that never listens by itself
 * (main.ts does; tests listen on port 0, or inject() into /api). Closing the app
 * closes the runtime it opened.
 *   /v1/*    data plane (OpenAI and Anthropic formats), authenticated by issued keys:
 *            the HTTP server hands these to proxy/index.ts before Fastify routes anything
 *   /api/*   control plane for the console, authenticated by session tokens
 *   /healthz alive; /readyz the stores answer
 *   /metrics the gateway's own metrics (Prometheus), for the operator's METRICS_TOKEN
 *   /*       the console (static build), when built: its pages, and the 404 page with
 *            HTTP 404 at paths it has no page for
 * Every Fastify answer carries the browser-safety headers (security/browser-headers.ts).
 * Closing drains: running requests finish (within drain.ts's deadline), then the runtime
 * closes, which meters them.
 */
import { createServer } from 'node:http';
import type { Config } from '@spendgate/store';
import Fastify, { LogController } from 'fastify';
import { controlPlane } from './api/index.ts';
import { loadConsoleBuild, serveConsole } from './console.ts';
import { createDrain } from './drain.ts';
import { registerMetricsRoute } from './observability/metrics-route.ts';
import { BODY_LIMIT_BYTES, DATA_PLANE_PREFIX, type DataPlaneHandler, dataPlane } from './proxy/index.ts';
import { createRuntime, type Runtime, type RuntimeOptions } from './runtime.ts';
import { browserSafetyHeaders } from './security/browser-headers.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The stores and services this app runs on. */
    runtime: Runtime;
    /** The /v1 data plane's handler; `idle` waits for the requests under way to be metered. */
    dataPlane: DataPlaneHandler;
  }
}

export async function buildApp(config: Config, options: RuntimeOptions & { logStream?: NodeJS.WritableStream } = {}) {
  let serveDataPlane: DataPlaneHandler | undefined;
  const drain = createDrain();
  const app = Fastify({
    serverFactory: (fastifyHandler) => {
      const server = createServer((request, response) => {
        drain.answer(response);
        return serveDataPlane && request.url?.startsWith(DATA_PLANE_PREFIX) ? serveDataPlane(request, response) : fastifyHandler(request, response);
      });
      // Fastify's defaults for its own servers: keep-alive 72 s, no request timeout.
      server.keepAliveTimeout = 72_000;
      server.requestTimeout = 0;
      return server;
    },
    logger: { level: config.logLevel, ...(options.logStream ? { stream: options.logStream } : {}) },
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: () => crypto.randomUUID(),
    // No per-request log lines: the hot path stays quiet; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.addHook('preClose', async () => drain.begin(app.server));
  const consoleBuild = await loadConsoleBuild(config.consoleDir, config.google.clientId ? config.google.signInScriptUrl : undefined);
  app.addHook('onRequest', browserSafetyHeaders({ publicUrl: config.publicUrl, consoleCsp: consoleBuild?.csp }));
  const runtime = await createRuntime(config, { ...options, log: app.log });
  app.decorate('runtime', runtime);
  // Requests the drain cut finish metering (within a second), then the meter's last flush.
  app.addHook('onClose', async () => {
    await serveDataPlane?.idle(1_000);
    await runtime.close();
  });

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const ready = await runtime.stores.ready();
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'unavailable', mode: runtime.stores.mode });
  });

  if (runtime.metrics && config.observability.metricsToken) registerMetricsRoute(app, runtime.metrics, config.observability.metricsToken);

  serveDataPlane = dataPlane({ ...runtime, log: app.log });
  app.decorate('dataPlane', serveDataPlane);
  await app.register(controlPlane(runtime), { prefix: '/api' });

  if (consoleBuild) await serveConsole(app, consoleBuild);
  return app;
}

export type App = Awaited<ReturnType<typeof buildApp>>;
