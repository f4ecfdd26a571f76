// The worker's jobs, registered on a queue. The embedded mode registers them in the
// gateway process; the scaled mode runs them in `npm run worker` processes. The demo
// team's layout is here too: the gateway makes a demo team's groups and keys, the
// demo-fill job its usage.
import { priceCatalog } from '@spendgate/core';
import { type Config, createEnvelope, createLogger, createOutboundGuard, type JobPayloads, openStores, type StoreOptions, type Stores } from '@spendgate/store';
import { registerJobs } from './jobs/registry.ts';

export { DEMO_DAYS, DEMO_GROUPS, DEMO_KEYS } from './demo/sample.ts';
export { demoFillJobId } from './jobs/demo-fill.ts';
export { createInvoiceBuildProcessor } from './jobs/invoice-build.ts';
export { createInvoiceCollectProcessor } from './jobs/invoice-collect.ts';
export { createInvoiceProofProcessor } from './jobs/invoice-proof.ts';
export { JOB_NAMES, registerJobs } from './jobs/registry.ts';
export { rollupRebuildJobId } from './jobs/rollup-rebuild.ts';
export {
  applyCheckoutSession,
  attachCard,
  callStripe,
  choosablePlan,
  choosePlan,
  ensureCustomer,
  keepCard,
  makeStripeDefault,
  stripeFailure,
} from './payments/billing.ts';
export { createStripeClient, stripeIdempotencyKey, verifyStripeWebhook } from './payments/stripe.ts';

/** Opens the stores and consumes every job in this process (the scaled mode's worker). */
export async function startWorker(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'redisUrl' | 'mail' | 'logLevel' | 'usageEventRetentionDays' | 'gpuSampleRetentionHours' | 'secrets' | 'upstreamAllowedHosts' | 'twilioApiUrl' | 'publicUrl' | 'stripe'>,
  options: StoreOptions = {},
): Promise<Stores<JobPayloads>> {
  const log = options.log ?? createLogger(config.logLevel);
  const stores = await openStores<JobPayloads>(config, { ...options, log });
  const outbound = createOutboundGuard({ allowedHosts: config.upstreamAllowedHosts });
  await registerJobs(stores.queue, {
    sql: stores.sql,
    mail: config.mail,
    log,
    usageEventRetentionDays: config.usageEventRetentionDays,
    gpuSampleRetentionHours: config.gpuSampleRetentionHours,
    queue: stores.queue,
    envelope: createEnvelope(config.secrets.masterKey),
    outbound,
    twilioApiUrl: config.twilioApiUrl,
    publicUrl: config.publicUrl,
    stripe: config.stripe,
    catalog: priceCatalog,
    invalidateKey: stores.invalidateKey,
  });
  return {
    ...stores,
    close: async () => {
      await stores.close();
      await outbound.dispatcher.destroy();
    },
  };
}
