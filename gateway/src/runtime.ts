/**
 * Everything one gateway process runs on: the stores for the configured mode and the
 * services built on them. In the embedded mode the worker's jobs run here too.
 */
import { type PriceCatalog, priceCatalog } from '@spendgate/core';
import {
  type Config,
  countUsageOutbox,
  createEnvelope,
  createOutboundGuard,
  type HostResolver,
  type JobPayloads,
  openStores,
  type StoreOptions,
  type Stores,
  upsertCatalogVersions,
} from '@spendgate/store';
import { JOB_NAMES, registerJobs } from '@spendgate/worker';
import type { FastifyBaseLogger } from 'fastify';
import { createPromptCapture } from './capture/prompt-capture.ts';
import { createControlPlaneServices } from './control/index.ts';
import { startOpenTelemetry } from './observability/opentelemetry.ts';
import { createPrometheusMetrics } from './observability/prometheus.ts';
import { combineObservers } from './observability/request-observer.ts';
import { createBodyHasher } from './proxy/body-hash.ts';
import { createMetering } from './proxy/metering.ts';
import { createPrincipalService, type Principal } from './proxy/principals.ts';
import { type CircuitNews, createRouter, createUpstreamHealth } from './proxy/routing.ts';
import { createUpstreamResolver } from './proxy/upstreams.ts';
import { createUsageOutbox } from './proxy/usage-outbox.ts';
import { createSessionTokens } from './security/session-tokens.ts';

export interface RuntimeOptions extends StoreOptions {
  /** The price catalog (default: the one built into core). */
  catalog?: PriceCatalog;
  /** Resolves the host names of teams' connections (default: the system's resolver; tests fake DNS). */
  resolveHost?: HostResolver;
  /** The clock trials and subscriptions are read on (default: the system's); tests set it to move past a trial's end. */
  clock?: () => Date;
}

export async function createRuntime(config: Config, options: RuntimeOptions & { log: FastifyBaseLogger }) {
  // Only the gateway reads from replicas: the worker's stores open none.
  const stores: Stores<JobPayloads> = await openStores<JobPayloads>(config, {
    ...options,
    readReplicas: { urls: config.databaseReadUrls, maxLagSeconds: config.databaseReadMaxLagSeconds },
  });
  const catalog = options.catalog ?? priceCatalog;
  await upsertCatalogVersions(
    stores.sql.db,
    catalog.versions.map((version) => ({
      id: version.id,
      effectiveFrom: version.effectiveFrom,
      currency: version.currency,
      modelCount: Object.values(version.prices).reduce((sum, models) => sum + Object.keys(models).length, 0),
    })),
  );
  const envelope = createEnvelope(config.secrets.masterKey);
  const outbound = createOutboundGuard({ allowedHosts: config.upstreamAllowedHosts, resolve: options.resolveHost });
  if (stores.mode === 'embedded') {
    await registerJobs(stores.queue, {
      sql: stores.sql,
      mail: config.mail,
      log: options.log,
      usageEventRetentionDays: config.usageEventRetentionDays,
      gpuSampleRetentionHours: config.gpuSampleRetentionHours,
      queue: stores.queue,
      envelope,
      outbound,
      twilioApiUrl: config.twilioApiUrl,
      publicUrl: config.publicUrl,
      stripe: config.stripe,
      catalog,
      invalidateKey: stores.invalidateKey,
    });
  }

  const sessions = createSessionTokens(config.secrets.jwtSecret);
  const keyCache = await stores.createKeyCache<Principal>({ maxEntries: 10_000, ttlMs: 60_000 });
  const outbox = createUsageOutbox({ sql: stores.sql, queue: stores.queue, log: options.log });
  outbox.start();
  const circuitNews = await stores.createBroadcast<CircuitNews>('upstream-health');
  const health = createUpstreamHealth({ now: Date.now, news: circuitNews });
  const { observability } = config;
  const metrics = observability.metricsToken
    ? createPrometheusMetrics({
        modelLabels: observability.metricsModelLabels,
        sources: {
          circuits: health.circuits,
          meterBacklog: async () => ({ gateway: metering.heldEvents(), outbox: await countUsageOutbox(stores.sql.db) }),
          replicaLag: stores.sql.replicaLag,
          waitingJobs: async () => Object.fromEntries(await Promise.all(JOB_NAMES.map(async (name) => [name, await stores.queue.waitingJobs(name)]))),
          onError: (error, source) => options.log.warn({ err: error }, `/metrics could not read the ${source}`),
        },
      })
    : undefined;
  const openTelemetry = observability.otel ? await startOpenTelemetry(observability.otel) : undefined;
  const observer = combineObservers([metrics?.observer, openTelemetry?.observer]);
  const metering = createMetering({
    ...stores,
    outbox,
    catalog,
    log: options.log,
    hashBodies: createBodyHasher(envelope),
    subscriptionUrl: `${config.publicUrl}/dashboard/settings/subscription`,
    ...(options.clock ? { now: options.clock } : {}),
    observer,
  });
  const capture = createPromptCapture({ sql: stores.sql, envelope, log: options.log });
  const upstreams = createUpstreamResolver({ optimisedUpstreams: config.optimisedUpstreams, catalog });

  return {
    config,
    stores,
    sessions,
    services: await createControlPlaneServices({
      config,
      sql: stores.sql,
      queue: stores.queue,
      ledger: stores.ledger,
      envelope,
      sessions,
      keyCache,
      catalog,
      outbound,
      ...(options.clock ? { now: options.clock } : {}),
    }),
    principals: createPrincipalService({ sql: stores.sql, envelope, cache: keyCache, outbound, captureRetentionDays: config.promptCaptureRetentionDays }),
    catalog,
    upstreams,
    router: createRouter({ upstreams, catalog, health }),
    metering,
    /** /metrics' registry when METRICS_TOKEN is set. */
    metrics,
    /** What the data plane tells /metrics and OpenTelemetry; undefined when both are off. */
    observer,
    /** OpenTelemetry's spans of the data plane's requests, when traces are exported. */
    tracer: openTelemetry?.tracer,
    capture,
    upstreamTimeoutMs: config.upstreamTimeoutMs,
    close: async () => {
      await metering.settled();
      await openTelemetry?.close();
      await capture.close();
      await outbox.stop();
      await outbound.dispatcher.destroy();
      await stores.close();
    },
  };
}

export type Runtime = Awaited<ReturnType<typeof createRuntime>>;
