// The typed map from job name to payload, shared by the producers (gateway) and the
// processors (worker/src/jobs). Payloads are JSON: money travels as integer strings,
// never floats, and no payload ever carries a secret.
import type { BillingRule, DigestFrequency, KeyKind, Usage } from '@spendgate/core';

export interface UsageEventJob {
  requestId: string;
  occurredAt: string;
  teamId: string;
  groupId: string;
  keyId: string;
  connectionId: string | null;
  provider: string;
  model: string;
  endpoint: string;
  statusCode: number;
  streamed: boolean;
  estimated: boolean;
  usage: Usage;
  /** Integer micro-units as a string; null when the model has no price (unpriced). */
  costMicros: string | null;
  currency: string;
  priceVersion: string | null;
  latencyMs: number;
  keyKind: KeyKind;
  /** What Spendgate bills, GBP micros as a string; null when the base cost is unpriced. */
  billedMicros: string | null;
  billingRule: BillingRule;
  /** USD→GBP rate used, parts per million, as a string. */
  fxRatePpm: string;
  /** GBP micros the request counted on the team's budgets (what the ledger settled), as a string. */
  budgetSpendMicros: string;
  /** How the model was chosen, e.g. `requested` or `auto: …` (see x-spendgate-route). */
  route: string;
  /** HMAC-SHA256 of the request body as the caller sent it under the team's body-hash key, hex (duplicate requests); never the body or the key. */
  bodyHmac?: string;
  /** The model the caller asked for (`model` is the one that served); absent on events from before it was recorded. */
  requestedModel?: string;
  /** The output limit the request asked for, per answer (under its key's cap); absent when none was asked. */
  requestedOutputTokens?: number;
}

/** Usage events handed over together: the gateway sends what its requests recorded in a few milliseconds as one job. */
export interface UsageBatchJob {
  events: UsageEventJob[];
}

/** An outbox message to deliver; the message itself stays in the database. */
export interface MailJob {
  outboxId: string;
}

/** Deletes what nothing reads any more; scheduled, so it carries nothing. */
export type PruneJob = Record<string, never>;

/** Keeps usage_events' monthly partitions (store's usage-partitions.ts); scheduled, so it carries nothing. */
export type UsagePartitionsJob = Record<string, never>;

/** Checks the usage rollups of the last `lookBackHours` against the events and repairs them. */
export interface ReconcileUsageJob {
  lookBackHours: number;
}

/** Sends the spend digests that are due; scheduled, so it carries nothing. */
export type SpendDigestJob = Record<string, never>;

/** Sends a team admin the digest of the last whole period now, as a sample (not counted as that period's). */
export interface SpendDigestPreviewJob {
  teamId: string;
  userId: string;
  frequency: DigestFrequency;
}

/** Checks every budget's alert thresholds against its spend; scheduled, so it carries nothing. */
export type AlertCheckJob = Record<string, never>;

/** Sends one alert to one channel (the delivery row says which); no secret travels here. */
export interface AlertDeliverJob {
  deliveryId: string;
}

/** Forecasts daily spend for every team and group (or one team's, when named). */
export interface ForecastJob {
  teamId?: string;
}

/** Starts billing for ended trials and invoices the billing periods that have ended; scheduled, so it carries nothing. */
export type InvoiceBuildJob = Record<string, never>;

/** Recounts every invoice against the usage it charges; scheduled, so it carries nothing. */
export type InvoiceProofJob = Record<string, never>;
/** Charges the open invoices not at Stripe yet through Stripe; scheduled, so it carries nothing. */
export type InvoiceCollectJob = Record<string, never>;

/** Processes one Stripe webhook event, kept in stripe_events by its id (the payload stays there). */
export interface StripeEventJob {
  eventId: string;
}

/** Rolls the new samples of each GPU (of one team, when named: a batch just recorded) up into classified minutes. */
export interface GpuRollupJob {
  teamId?: string;
}

/** Reads one DCGM exporter (`targetId`), or, scheduled, hands each exporter its own job. */
export interface GpuScrapeJob {
  targetId?: string;
}

/** Records the next day of a demo team's sample usage (the fill says which). */
export interface DemoFillJob {
  teamId: string;
}

/** Regroups the next days of a team's daily rollups on its new time zone's midnights (its rebuild says which). */
export interface RollupRebuildJob {
  teamId: string;
}

export type JobPayloads = {
  meter: UsageBatchJob;
  mail: MailJob;
  prune: PruneJob;
  'usage-partitions': UsagePartitionsJob;
  'reconcile-usage': ReconcileUsageJob;
  'alert-check': AlertCheckJob;
  'alert-deliver': AlertDeliverJob;
  'spend-digest': SpendDigestJob;
  'spend-digest-preview': SpendDigestPreviewJob;
  forecast: ForecastJob;
  'invoice-build': InvoiceBuildJob;
  'invoice-proof': InvoiceProofJob;
  'stripe-event': StripeEventJob;
  'invoice-collect': InvoiceCollectJob;
  'gpu-rollup': GpuRollupJob;
  'gpu-scrape': GpuScrapeJob;
  'demo-fill': DemoFillJob;
  'rollup-rebuild': RollupRebuildJob;
};
