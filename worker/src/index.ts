// The worker's processors, registered on a queue. The embedded mode registers them in
// the gateway process; the scaled mode runs them in `npm run worker` processes.
import { type Config, type JobQueue, type MailConfig, openStores, type SqlStore, type StoreOptions, type Stores } from '@spendgate/store';
import type { JobPayloads } from './jobs.ts';
import { createMailProcessor, type MailLog } from './processors/mail.ts';
import { createMeterProcessor } from './processors/meter.ts';

export type { JobPayloads, MailJob, UsageBatchJob, UsageEventJob } from './jobs.ts';
export type { MailLog } from './processors/mail.ts';
export { usageEventRow } from './processors/meter.ts';

export function registerProcessors(
  queue: JobQueue<JobPayloads>,
  deps: { sql: SqlStore; mail: MailConfig; log: MailLog },
): void {
  queue.process('meter', createMeterProcessor(deps), { concurrency: 8 });
  queue.process('mail', createMailProcessor(deps), { concurrency: 2 });
}

/** Opens the stores and consumes every job in this process (the scaled mode's worker). */
export async function startWorker(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'redisUrl' | 'mail'>,
  options: StoreOptions = {},
): Promise<Stores<JobPayloads>> {
  const stores = await openStores<JobPayloads>(config, options);
  registerProcessors(stores.queue, { ...stores, mail: config.mail, log: console });
  return stores;
}
