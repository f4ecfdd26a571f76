/**
 * Every job the worker runs, in one table: its processor, how many run at once, how many
 * tries it gets, for a scheduled job how often it runs, and for a job that hands itself
 * on (demo-fill, rollup-rebuild) what a restart left unfinished. A new job is a file beside this one, its
 * payload in the job map (store/src/queue/jobs.ts) and a row here.
 * A failed try is retried after `backoffMs`, doubling with each further try.
 */
import type { PriceCatalog } from '@spendgate/core';
import {
  DEFAULT_ATTEMPTS,
  type Envelope,
  type JobHandler,
  type JobPayloads,
  type JobQueue,
  type Logger,
  type MailConfig,
  type OutboundGuard,
  type SqlStore,
  type StripeConfig,
} from '@spendgate/store';
import type { InvalidateKey } from '../payments/billing.ts';
import { createAlertCheckProcessor } from './alert-check.ts';
import { ALERT_DELIVERY_ATTEMPTS, createAlertDeliverProcessor } from './alert-deliver.ts';
import { createDemoFillProcessor, unfinishedDemoDays } from './demo-fill.ts';
import { createForecastProcessor } from './forecast.ts';
import { createGpuRollupProcessor } from './gpu-rollup.ts';
import { createGpuScrapeProcessor } from './gpu-scrape.ts';
import { createInvoiceBuildProcessor } from './invoice-build.ts';
import { createInvoiceCollectProcessor } from './invoice-collect.ts';
import { createInvoiceProofProcessor } from './invoice-proof.ts';
import { createMailProcessor } from './mail.ts';
import { createMeterProcessor } from './meter.ts';
import { createPruneProcessor } from './prune.ts';
import { createReconcileUsageProcessor } from './reconcile-usage.ts';
import { createSpendDigestPreviewProcessor, createSpendDigestProcessor } from './spend-digest.ts';
import { createRollupRebuildProcessor, unfinishedRollupRebuildDays } from './rollup-rebuild.ts';
import { createStripeEventProcessor } from './stripe-event.ts';
import { createUsagePartitionsProcessor } from './usage-partitions.ts';

/** What a processor may use. */
export interface JobDeps {
  sql: SqlStore;
  mail: MailConfig;
  log: Logger;
  /** Days a usage event is kept (prune deletes older ones; their rollups stay). */
  usageEventRetentionDays: number;
  /** Hours a raw GPU sample is kept (prune deletes older ones; their minutes stay). */
  gpuSampleRetentionHours: number;
  /** Where jobs hand work on (the alert check to its deliveries). */
  queue: JobQueue<JobPayloads>;
  /** Opens channel secrets (webhook URLs, Twilio tokens) sealed with a team's data key. */
  envelope: Envelope;
  /** Every call to an address a team gave goes through its dispatcher, after its text is checked. */
  outbound: Pick<OutboundGuard, 'dispatcher' | 'problem'>;
  /** Twilio's API origin, for SMS alerts. */
  twilioApiUrl: string;
  /** The console's address, for links in mail (spend digests). */
  publicUrl: string;
  /** Stripe's API origin and secret key, for billing. */
  stripe: Pick<StripeConfig, 'apiUrl' | 'secretKey'>;
  /** Prices a demo team's sample requests as the gateway prices requests. */
  catalog: PriceCatalog;
  /** Drops a key from every gateway's key cache (the stores' `invalidateKey`): a job that changes a subscription's access applies it at once. */
  invalidateKey: InvalidateKey;
}

type JobName = keyof JobPayloads;

interface JobDefinition<N extends JobName> {
  createProcessor(deps: JobDeps): JobHandler<JobPayloads[N]>;
  concurrency: number;
  attempts: number;
  /** Delay before the first retry, doubling with each further one. */
  backoffMs: number;
  /** A scheduled job: enqueued with `payload` every `everyMs`. */
  schedule?: { everyMs: number; payload: JobPayloads[N] };
  /** Jobs a restart left unfinished: enqueued again when a process starts consuming (one still pending keeps its id, so runs once). */
  unfinished?: (deps: JobDeps) => Promise<{ payload: JobPayloads[N]; jobId: string }[]>;
}

const HOUR_MS = 3_600_000;

const JOBS: { [N in JobName]: JobDefinition<N> } = {
  // Usage waits in the outbox until recorded: retry soon (1, 2, 4, 8 s).
  meter: { createProcessor: createMeterProcessor, concurrency: 8, attempts: DEFAULT_ATTEMPTS, backoffMs: 1_000 },
  // A refusing or absent SMTP server is seldom back within seconds: 30 s, 1, 2, 4 min.
  mail: { createProcessor: createMailProcessor, concurrency: 2, attempts: DEFAULT_ATTEMPTS, backoffMs: 30_000 },
  // The next hourly run does the same work: two more tries a minute apart are enough.
  prune: { createProcessor: createPruneProcessor, concurrency: 1, attempts: 3, backoffMs: 60_000, schedule: { everyMs: HOUR_MS, payload: {} } },
  // Hourly: a month's partition exists three months ahead, so many failed runs in a row are harmless; a drop that waited
  // too long for readers is the next try's (a minute later) or the next hour's.
  'usage-partitions': {
    createProcessor: createUsagePartitionsProcessor,
    concurrency: 1,
    attempts: 3,
    backoffMs: 60_000,
    schedule: { everyMs: HOUR_MS, payload: {} },
  },
  // Hourly over the last two days: a late event's hour is checked again the next day.
  'reconcile-usage': {
    createProcessor: createReconcileUsageProcessor,
    concurrency: 1,
    attempts: 3,
    backoffMs: 60_000,
    schedule: { everyMs: HOUR_MS, payload: { lookBackHours: 48 } },
  },
  // Each minute; a failed run is simply the next one.
  'alert-check': { createProcessor: createAlertCheckProcessor, concurrency: 1, attempts: 1, backoffMs: 60_000, schedule: { everyMs: 60_000, payload: {} } },
  // Hourly: a digest is due from 08:00 in its team's zone, so it goes out between 08:00 and 09:00 there; a failed run is the next hour's.
  'spend-digest': { createProcessor: createSpendDigestProcessor, concurrency: 1, attempts: 1, backoffMs: 60_000, schedule: { everyMs: HOUR_MS, payload: {} } },
  // A sample asked for in the console: tried again soon (its mail is stored once it is made).
  'spend-digest-preview': { createProcessor: createSpendDigestPreviewProcessor, concurrency: 2, attempts: 3, backoffMs: 5_000 },
  // A webhook or SMTP server that fails is retried after 30 s, 1, 2, 4 min, then the delivery is failed.
  'alert-deliver': { createProcessor: createAlertDeliverProcessor, concurrency: 4, attempts: ALERT_DELIVERY_ATTEMPTS, backoffMs: 30_000 },
  // Every 6 hours (a new team day is forecast within 6 hours of starting); the next run redoes a failed one.
  forecast: { createProcessor: createForecastProcessor, concurrency: 1, attempts: 2, backoffMs: 300_000, schedule: { everyMs: 6 * HOUR_MS, payload: {} } },
  // Hourly: a period is invoiced within two hours of its end (an hour's grace for late events); the next run does what a failed one left.
  'invoice-build': { createProcessor: createInvoiceBuildProcessor, concurrency: 1, attempts: 3, backoffMs: 60_000, schedule: { everyMs: HOUR_MS, payload: {} } },
  // Nightly; the next night redoes a failed run.
  'invoice-proof': { createProcessor: createInvoiceProofProcessor, concurrency: 1, attempts: 2, backoffMs: 300_000, schedule: { everyMs: 24 * HOUR_MS, payload: {} } },
  // A Stripe that cannot be reached is retried after 5 s, 10 s, … (8 tries, about 21 min); a replayed event keeps its job id.
  'stripe-event': { createProcessor: createStripeEventProcessor, concurrency: 4, attempts: 8, backoffMs: 5_000 },
  // Every 10 minutes; an invoice Stripe could not take now is taken by the next run.
  'invoice-collect': { createProcessor: createInvoiceCollectProcessor, concurrency: 1, attempts: 1, backoffMs: 60_000, schedule: { everyMs: 10 * 60_000, payload: {} } },
  // Each minute for every team, and at once for a team whose batch just arrived; a failed run is the next one's work.
  'gpu-rollup': { createProcessor: createGpuRollupProcessor, concurrency: 1, attempts: 1, backoffMs: 60_000, schedule: { everyMs: 60_000, payload: {} } },
  // Every 30 s (twice a minute slot); a failed scrape is recorded on its exporter, and the next turn scrapes again.
  'gpu-scrape': { createProcessor: createGpuScrapeProcessor, concurrency: 4, attempts: 1, backoffMs: 30_000, schedule: { everyMs: 30_000, payload: {} } },
  // One day of one demo team at a time, as the meter's batches go; a day that fails is tried again as a meter batch is.
  'demo-fill': { createProcessor: createDemoFillProcessor, concurrency: 1, attempts: DEFAULT_ATTEMPTS, backoffMs: 1_000, unfinished: unfinishedDemoDays },
  // A week of one team's days at a time; a run that fails is tried again soon (its days are redone whole).
  'rollup-rebuild': {
    createProcessor: createRollupRebuildProcessor,
    concurrency: 1,
    attempts: DEFAULT_ATTEMPTS,
    backoffMs: 1_000,
    unfinished: unfinishedRollupRebuildDays,
  },
};

/** Every job's name: the queues there are (a gateway's /metrics counts their waiting jobs). */
export const JOB_NAMES = Object.keys(JOBS) as JobName[];

async function registerJob<N extends JobName>(queue: JobQueue<JobPayloads>, name: N, deps: JobDeps): Promise<void> {
  const job: JobDefinition<N> = JOBS[name];
  queue.process(name, job.createProcessor(deps), { concurrency: job.concurrency, attempts: job.attempts, backoffMs: job.backoffMs, resumable: job.unfinished !== undefined });
  if (job.schedule) await queue.schedule(name, job.schedule.payload, { everyMs: job.schedule.everyMs });
  for (const { payload, jobId } of (await job.unfinished?.(deps)) ?? []) await queue.enqueue(name, payload, { jobId });
}

/** Consumes every job of the table on `queue`, and starts the schedules. */
export async function registerJobs(queue: JobQueue<JobPayloads>, deps: JobDeps): Promise<void> {
  for (const name of JOB_NAMES) await registerJob(queue, name, deps);
}
