// Table types for Kysely: one Database interface, as the migrations create it.
// int8 columns come back as bigint (see connect.ts), timestamps as Date.
import type { AdvisorChange, AlertChannel, BudgetMode, BudgetScope, BudgetWindow, DigestFrequency, GroupRole, KeyKind, KeySettings, SubscriptionStatus, TeamRole } from '@spendgate/core';
import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
/** An int8 read as bigint, written also as a safe integer or exact decimal digits (a usage event comes so from its job). */
type Int8 = ColumnType<bigint, bigint | number | string, bigint | number | string>;
type Json<T> = ColumnType<T, string | undefined, string>;

export type { GroupRole, KeyKind, SubscriptionStatus, TeamRole };

export interface UsersTable {
  id: string;
  email: string;
  name: string;
  password_hash: string | null;
  avatar: string | null;
  metadata: Json<Record<string, unknown>>;
  created_at: CreatedAt;
  email_verified_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** In every session token; raised when the password changes, which ends older sessions. */
  session_version: ColumnType<number, number | undefined, number>;
  google_subject: ColumnType<string | null, string | null | undefined, string | null>;
  /** When a session was last issued to the account, by any sign-in path. */
  last_signed_in_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface TeamsTable {
  id: string;
  name: string;
  description: string;
  created_by: string;
  created_at: CreatedAt;
  allow_unpriced_models: ColumnType<boolean, boolean | undefined, boolean>;
  /** IANA time zone whose calendar days, weeks and months bound the team's budgets. */
  time_zone: ColumnType<string, string | undefined, string>;
  /** Filled with sample usage (a demo team): never billed, never mixed with real spend. */
  is_demo: ColumnType<boolean, boolean | undefined, boolean>;
}

export interface BudgetsTable {
  id: string;
  team_id: string;
  scope: BudgetScope;
  scope_id: string;
  amount_micros: bigint;
  currency: ColumnType<string, string | undefined, string>;
  window: BudgetWindow;
  mode: BudgetMode;
  alert_at: Json<number[]>;
  created_by: string;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface TeamPriceOverridesTable {
  id: string;
  team_id: string;
  provider: string;
  model: string;
  input_per_mtok_micros: bigint;
  output_per_mtok_micros: bigint;
  cached_read_per_mtok_micros: bigint | null;
  cache_write_5m_per_mtok_micros: bigint | null;
  cache_write_1h_per_mtok_micros: bigint | null;
  created_by: string;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface TeamMembersTable {
  team_id: string;
  user_id: string;
  role: TeamRole;
  created_at: CreatedAt;
}

export interface SyntheticGroupsTable {
  id: string;
  team_id: string;
  name: string;
  description: string;
  created_by: string;
  created_at: CreatedAt;
}

export interface SyntheticGroupMembersTable {
  group_id: string;
  user_id: string;
  role: GroupRole;
  created_at: CreatedAt;
}

export interface AuditLogTable {
  id: Generated<bigint>;
  team_id: string;
  actor_user_id: string | null;
  action: string;
  target_type: string;
  target_id: string;
  details: Json<Record<string, unknown>>;
  created_at: CreatedAt;
  /** The row's number within its team's chain: 1, 2, … without gaps (pruning starts it later). */
  seq: Int8;
  actor_ip: string | null;
  actor_user_agent: string | null;
  before: Json<Record<string, unknown> | null>;
  after: Json<Record<string, unknown> | null>;
  prev_hash: string;
  hash: string;
}

/** A team's audit chain: its head (locked by each append), the anchor verification starts from, its retention. */
export interface AuditChainsTable {
  team_id: string;
  head_seq: ColumnType<bigint, bigint | undefined, bigint>;
  head_hash: ColumnType<string, string | undefined, string>;
  anchor_seq: ColumnType<bigint, bigint | undefined, bigint>;
  anchor_hash: ColumnType<string, string | undefined, string>;
  retention_days: ColumnType<number, number | undefined, number>;
}

export interface TeamDataKeysTable {
  team_id: string;
  key_version: number;
  wrapped_key: Uint8Array;
  created_at: CreatedAt;
}

export interface ProviderConnectionsTable {
  id: string;
  team_id: string;
  provider: string;
  name: string;
  base_url: string;
  secret_ciphertext: Uint8Array;
  secret_key_version: number;
  secret_tail: string;
  status: ColumnType<string, string | undefined, string>;
  options: Json<Record<string, unknown>>;
  created_by: string;
  created_at: CreatedAt;
}

export interface IssuedKeysTable {
  id: string;
  team_id: string;
  group_id: string;
  connection_id: string | null;
  kind: KeyKind;
  name: string;
  key_hash: string;
  key_prefix: string;
  created_by: string;
  created_at: CreatedAt;
  revoked_at: Date | null;
  settings: ColumnType<KeySettings, string | undefined, string>;
}

export interface PriceCatalogVersionsTable {
  id: string;
  effective_from: Date | string;
  currency: string;
  model_count: number;
  created_at: CreatedAt;
}

export interface UsageRequestIdsTable {
  request_id: string;
  claimed_at: Generated<Date>;
}

export interface UsageEventsTable {
  request_id: string;
  occurred_at: Date | string;
  team_id: string;
  /** The request's group and key; null for a call the team made through Spendgate without one (the advisor's wording, route 'advisor-wording'). */
  group_id: string | null;
  key_id: string | null;
  connection_id: string | null;
  provider: string;
  model: string;
  endpoint: string;
  status_code: number;
  streamed: boolean;
  estimated: boolean;
  input_tokens: Int8;
  cached_read_tokens: Int8;
  cache_write_5m_tokens: Int8;
  cache_write_1h_tokens: Int8;
  output_tokens: Int8;
  reasoning_tokens: Int8;
  cost_micros: Int8 | null;
  currency: string;
  price_version: string | null;
  latency_ms: number;
  key_kind: ColumnType<string, string | undefined, string>;
  /** What Spendgate charges for the request, GBP micros; null when it could not be priced. */
  billed_micros: Int8 | null;
  billed_currency: ColumnType<string, string | undefined, string>;
  fx_rate_ppm: Int8 | null;
  billing_rule: string | null;
  /** GBP micros this event counted on budgets (what the spend ledger settled). */
  budget_spend_micros: Int8 | null;
  /** How the request was routed, e.g. `requested`, `auto: cost 0.6 …`, `fallback: …`. */
  route: string | null;
  /** HMAC-SHA256 of the request body as sent under the team's body-hash key, hex (migration 20261126_0012); the body itself is never stored. */
  body_hmac: ColumnType<string | null, string | null | undefined, string | null>;
  /** The output limit the caller asked for (max_tokens / max_completion_tokens / max_output_tokens); null when none. */
  requested_output_tokens: ColumnType<number | null, number | null | undefined, number | null>;
  /** The model the caller asked for (`model`: the one that served); null on events from before migration 20261126_0020. */
  requested_model: ColumnType<string | null, string | null | undefined, string | null>;
  /** When it reached the database (its clock at the insert; migration 20261128_0102): an invoice counts those before its cut-off, later ones are billed as late usage. Null: recorded before that, counted as on time. */
  recorded_at: ColumnType<Date | null, never, never>;
}

/** The sums of the usage events of one team, hour or day, and dimension (migration 20261126_0001). */
export interface UsageRollupsTable {
  team_id: string;
  grain: 'hour' | 'day';
  /** The hour's start (UTC), or the day's midnight in the team's time zone. */
  bucket_start: Date | string;
  /** Null for events without a group and key (the advisor's wording). */
  group_id: string | null;
  key_id: string | null;
  connection_id: string | null;
  provider: string;
  model: string;
  key_kind: string;
  requests: Int8;
  /** Requests answered with a status of 400 or more. */
  errors: Int8;
  estimated_requests: Int8;
  unpriced_requests: Int8;
  input_tokens: Int8;
  cached_read_tokens: Int8;
  cache_write_5m_tokens: Int8;
  cache_write_1h_tokens: Int8;
  output_tokens: Int8;
  reasoning_tokens: Int8;
  /** Provider list-price cost, USD micros, of the priced requests. */
  cost_micros: Int8;
  /** What Spendgate charged, GBP micros. */
  billed_micros: Int8;
  /** What budgets counted, GBP micros. */
  budget_spend_micros: Int8;
  latency_sum_ms: Int8;
  latency_max_ms: number;
  /** Request counts per latency bucket (core's LATENCY_BUCKET_BOUNDS_MS). */
  latency_histogram: Int8[];
}

/** Usage events kept while the queue is unreachable; delivered to it when it is back. */
export interface UsageOutboxTable {
  request_id: string;
  payload: Json<unknown>;
  created_at: CreatedAt;
}

export type OtpPurpose = 'register' | 'verify-email' | 'reset-password';
export type PlanUnitKind = 'seat' | 'group' | 'key';

export interface SubscriptionPlansTable {
  id: string;
  slug: string;
  name: string;
  description: string;
  price_micros: bigint | null;
  currency: string;
  listed: boolean;
  features: Json<string[]>;
  created_at: ColumnType<Date, Date | string, never>;
}

/** The subscription of an account (its user id), which pays for the teams the account created. */
export interface SubscriptionsTable {
  user_id: string;
  id: Generated<string>;
  plan_slug: string;
  status: SubscriptionStatus;
  trial_end: Date | null;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
  /** Where billing periods are counted from: a period ends on the anchor's day of a later month. */
  billing_anchor: ColumnType<Date | null, Date | null | undefined, Date | null>;
  current_period_start: ColumnType<Date | null, Date | null | undefined, Date | null>;
  current_period_end: ColumnType<Date | null, Date | null | undefined, Date | null>;
  cancel_at_period_end: ColumnType<boolean, boolean | undefined, boolean>;
  canceled_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  stripe_customer_id: ColumnType<string | null, string | null | undefined, string | null>;
  stripe_subscription_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/** The plan a subscription is on from `effective_at` until its next row. */
export interface SubscriptionPlanHistoryTable {
  subscription_id: string;
  plan_slug: string;
  effective_at: Date;
}

export interface PaymentMethodsTable {
  id: string;
  subscription_id: string;
  stripe_payment_method_id: string;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  is_default: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: CreatedAt;
  detached_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** A seat, synthetic group or optimised key of a team, live over [started_at, ended_at): what plan allowances count. */
export interface PlanUnitsTable {
  team_id: string;
  kind: PlanUnitKind;
  target_id: string;
  started_at: Date;
  ended_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export type InvoiceStatus = 'draft' | 'open' | 'paid' | 'void';

/** A meter's quantity recorded for a team through the API, once per (team, identifier) (migration 20261126_0021). */
export interface UsageRecordsTable {
  id: string;
  team_id: string;
  meter: import('@spendgate/core').RecordedMeter;
  quantity: Int8;
  /** The plan's fee for the meter when it happened, GBP micros. */
  unit_amount_micros: Int8;
  /** The caller's idempotency key. */
  identifier: string;
  occurred_at: Date;
  description: string;
  recorded_by: string;
  created_at: CreatedAt;
}

/** One billing period of a subscription, invoiced (unique per subscription and period start). */
export interface InvoicesTable {
  id: string;
  /**
   * Given when it is finalised (draft → open), gap-free per issuer and year: SG-2026-000001
   * and on (invoice_number_counters); null for a draft. Invoices issued before migration
   * 20261128_0101 keep their SG-000123.
   */
  number: ColumnType<string | null, string | null | undefined, string | null>;
  subscription_id: string;
  status: InvoiceStatus;
  currency: string;
  period_start: Date;
  period_end: Date;
  /** Where billing stopped: the period's end, or an immediate cancellation. */
  billed_until: Date;
  total_pence: Int8;
  created_at: Date;
  finalized_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  paid_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  voided_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  stripe_invoice_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Its usage lines count the events recorded before this (the database's clock when it was built: every one of them was in); later ones are late usage, billed on adjustment lines of the next invoice. */
  usage_counted_before: Date;
  /** When the nightly proof last recounted it, and whether every line still equalled what it counts. */
  proof_checked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  proof_ok: ColumnType<boolean | null, boolean | null | undefined, boolean | null>;
}

/** The last invoice number given per issuer and year (migration 20261128_0101), taken in the transaction that finalises. */
export interface InvoiceNumberCountersTable {
  issuer: string;
  year: number;
  last_number: Int8;
}

/** A line of an invoice: what it counts is its kind, team, window and unit price (core's invoiceLineKey). */
export interface InvoiceLinesTable {
  id: string;
  invoice_id: string;
  position: number;
  kind: import('@spendgate/core').InvoiceLineKind;
  /** The meter of a recorded-usage line (migration 20261126_0021); null for every other. */
  meter: ColumnType<import('@spendgate/core').RecordedMeter | null, import('@spendgate/core').RecordedMeter | null | undefined, never>;
  team_id: string | null;
  plan_slug: string | null;
  window_start: Date;
  window_end: Date;
  description: string;
  quantity: Int8;
  unit_amount_micros: Int8 | null;
  amount_micros: Int8;
  amount_pence: Int8;
  unpriced_requests: Int8;
  /** An adjustment line: the earlier invoice whose window it bills late usage of, and from when that usage was recorded (to this invoice's usage_counted_before); both null for every other line. */
  adjusts_invoice_id: ColumnType<string | null, string | null | undefined, never>;
  arrived_from: ColumnType<Date | null, Date | null | undefined, never>;
  /** What the last proof counted for this line (null: not proved yet); a difference from quantity/amount is a mismatch. */
  proof_found_quantity: ColumnType<bigint | null, bigint | null | undefined, bigint | null>;
  proof_found_micros: ColumnType<bigint | null, bigint | null | undefined, bigint | null>;
}

/** A Stripe event as received (its signature verified), processed once by its id. */
export interface StripeEventsTable {
  id: string;
  type: string;
  /** The id of the event's `data.object`. */
  object_id: string | null;
  stripe_created: Date;
  payload: Json<Record<string, unknown>>;
  /** How many times Stripe delivered it. */
  receipts: ColumnType<number, number | undefined, number>;
  received_at: CreatedAt;
  processed_at: Date | null;
}

/** A Checkout Session whose outcome was applied to its subscription (once). */
export interface StripeCheckoutsTable {
  session_id: string;
  subscription_id: string;
  plan_slug: string;
  applied_at: CreatedAt;
}

/** The latest state of a Stripe object, read from Stripe at `read_at`. */
export interface StripeObjectsTable {
  id: string;
  object: string;
  state: Json<Record<string, unknown>>;
  read_at: Date;
}

export interface FaqsTable {
  id: string;
  question: string;
  answer: string;
  position: number;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface ContactFormsTable {
  id: string;
  slug: string;
  title: string;
  success_message: string;
  form_fields: Json<{ fields: unknown[] }>;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface ContactFormSubmissionsTable {
  id: string;
  form_id: string;
  submitted_values: Json<Record<string, string>>;
  created_at: CreatedAt;
}

export interface EmailOtpsTable {
  id: string;
  email: string;
  purpose: OtpPurpose;
  code_hash: string;
  expires_at: Date;
  attempts: ColumnType<number, number | undefined, number>;
  consumed_at: Date | null;
  /** Set when the code was entered correctly (consumed_at alone: replaced or locked). */
  verified_at: Date | null;
  created_at: CreatedAt;
}

export interface RateLimitHitsTable {
  bucket: string;
  window_start: Date;
  hits: number;
}

export interface MailOutboxTable {
  id: string;
  to_address: string;
  subject: string;
  text_body: string;
  status: ColumnType<'pending' | 'sent' | 'logged', 'pending' | undefined, 'pending' | 'sent' | 'logged'>;
  attempts: ColumnType<number, number | undefined, number>;
  last_error: string | null;
  created_at: CreatedAt;
  sent_at: Date | null;
}

export interface InvitationsTable {
  id: string;
  team_id: string;
  /** Null for an invitation to the team itself. */
  group_id: string | null;
  email: string;
  role: TeamRole | GroupRole;
  token_hash: string;
  invited_by: string;
  expires_at: Date;
  accepted_at: Date | null;
  revoked_at: Date | null;
  created_at: CreatedAt;
}

/** An AI advisor insight (migration 20261126_0006): one finding of a team, charged once. */
export interface AdvisorInsightsTable {
  id: string;
  team_id: string;
  /** The detector's fingerprint; unique per team, so a finding found again is not charged again. */
  fingerprint: string;
  kind: import('@spendgate/core').FindingKind;
  key_id: string | null;
  connection_id: string | null;
  provider: string | null;
  model: string | null;
  title: string;
  text: string;
  evidence: Json<{ requests: number; exampleRequestIds: string[]; facts: Record<string, string | number> }>;
  change: Json<AdvisorChange>;
  confidence: 'high' | 'medium' | 'low';
  /** GBP micros over the window, as it was and as it would have been; the saving scaled to 30 days. */
  current_cost_micros: Int8;
  counterfactual_cost_micros: Int8;
  monthly_saving_micros: Int8;
  /** The analysed days (yyyy-mm-dd, the team’s calendar, both included). */
  window_start: string;
  window_end: string;
  /** What the insight was charged (the plan's advisorInsightMicros when it was first found), GBP micros. */
  price_micros: Int8;
  currency: ColumnType<string, string | undefined, string>;
  plan_slug: string;
  created_by: string;
  created_at: CreatedAt;
  refreshed_at: ColumnType<Date, Date | string | undefined, Date | string>;
  applied_at: Date | null;
  applied_by: string | null;
}

/** Where a demo team's sample usage has got (migration 20261127_0202): the demo-fill job records it a day at a time. */
export interface DemoFillsTable {
  team_id: string;
  /** The sample's last moment (when the team was made): its days are the `days` UTC days up to it. */
  sample_end: Date;
  /** The team's groups and their keys, in the order of the demo's layout (worker/src/demo/sample.ts). */
  groups: Json<DemoFillGroup[]>;
  days: number;
  /** Days recorded so far, oldest first. */
  days_filled: ColumnType<number, number | undefined, number>;
  /** Sample requests recorded so far. */
  requests: ColumnType<number, number | undefined, number>;
  filled_at: Date | null;
}

/**
 * How far the rebuild of a team's daily rollups for its time zone has got (migration
 * 20261128_0501): the rollup-rebuild job regroups `days` local days from `first_day`
 * (a date in `time_zone`), a few at a time; `rebuilt_at` is set with the last.
 */
export interface RollupRebuildsTable {
  team_id: string;
  time_zone: string;
  /** The first local day with usage, `YYYY-MM-DD` (read it as text). */
  first_day: string;
  days: number;
  days_rebuilt: ColumnType<number, number | undefined, number>;
  requested_at: Date;
  rebuilt_at: Date | null;
}

export interface DemoFillGroup {
  groupId: string;
  keyIds: string[];
}

/** A team's alert channel (migration 20261126_0007): where its alerts go. */
export interface AlertChannelsTable {
  id: string;
  team_id: string;
  kind: AlertChannel;
  name: string;
  /** What is not secret: e-mail addresses, SMS numbers, the Twilio account SID, the webhook's host. */
  settings: Json<AlertChannelSettings>;
  /** The webhook URL or the Twilio auth token, sealed with the team's data key. */
  secret_ciphertext: Uint8Array | null;
  secret_key_version: number | null;
  created_by: string;
  created_at: CreatedAt;
}

export interface AlertChannelSettings {
  addresses?: string[];
  webhookHost?: string;
  accountSid?: string;
  from?: string;
  to?: string;
}

/** An alert that fired: unique per (team, dedupe key), so a threshold or breach fires once per window, a spike once per scope and day. */
export interface AlertEventsTable {
  id: string;
  team_id: string;
  kind: 'threshold' | 'breach' | 'spike' | 'gpu-idle' | 'test';
  dedupe_key: string;
  budget_id: string | null;
  threshold_percent: number | null;
  window_label: string | null;
  subject: string;
  message: string;
  details: Json<Record<string, unknown>>;
  created_at: CreatedAt;
}

export type AlertDeliveryStatus = 'pending' | 'retrying' | 'sent' | 'logged' | 'failed';

/** One alert to one channel; `idempotency_key` is `<alert id>:<channel id>`. */
export interface AlertDeliveriesTable {
  id: string;
  alert_id: string;
  channel_id: string | null;
  team_id: string;
  channel_kind: AlertChannel;
  channel_name: string;
  idempotency_key: string;
  status: ColumnType<AlertDeliveryStatus, AlertDeliveryStatus | undefined, AlertDeliveryStatus>;
  attempts: ColumnType<number, number | undefined, number>;
  claimed_until: Date | null;
  last_error: string | null;
  sent_at: Date | null;
  created_at: CreatedAt;
}

export interface AlertDeliveryAttemptsTable {
  delivery_id: string;
  attempt: number;
  at: Date;
  outcome: 'sent' | 'logged' | 'failed';
  status_code: number | null;
  error: string | null;
}

/** A forecast of a team's or group's daily spend for one month (migration 20261126_0005). */
export interface SpendForecastsTable {
  /** The team's id for the team's forecast, else the group's. */
  scope_id: string;
  /** yyyy-mm in the team's calendar. */
  period: string;
  team_id: string;
  group_id: string | null;
  made_at: Date | string;
  method: string;
  fallback: boolean;
  /** GBP budget spend of the period's complete days so far, micros. */
  actual_micros: Int8;
  /** Month-end projection (actual + forecast) and its bounds, micros. */
  projected_micros: Int8;
  lower80_micros: Int8;
  upper80_micros: Int8;
  lower95_micros: Int8;
  upper95_micros: Int8;
  /** The period's days: actual ones and forecast ones with their bands (micros as strings). */
  days: Json<ForecastDayRow[]>;
}

export interface ForecastDayRow {
  date: string;
  actualMicros: string | null;
  forecastMicros: string | null;
  lower80Micros: string | null;
  upper80Micros: string | null;
  lower95Micros: string | null;
  upper95Micros: string | null;
}

/** A scope's rolling-origin backtest of its daily forecasts over the last 8 weeks. */
export interface ForecastBacktestsTable {
  scope_id: string;
  team_id: string;
  group_id: string | null;
  made_at: Date | string;
  weeks: number;
  days: number;
  mase: number | null;
  coverage80: number;
  coverage95: number;
  wape: number | null;
}

export interface TeamCaptureSettingsTable {
  team_id: string;
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  /** Days a capture is kept; null: the deployment's default (PROMPT_CAPTURE_RETENTION_DAYS). */
  retention_days: ColumnType<number | null, number | null | undefined, number | null>;
  /** The team's own redaction patterns (RE2 syntax). */
  redaction_patterns: Json<string[]>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface GroupCaptureSettingsTable {
  group_id: string;
  team_id: string;
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface PromptCapturesTable {
  request_id: string;
  team_id: string;
  group_id: string;
  captured_at: Date;
  expires_at: Date;
  /** The version of the team data key that sealed it. */
  key_version: number;
  /** The redacted request and response as JSON, sealed with the team's data key. */
  sealed: Uint8Array;
}

/** The AI advisor's written wording, per team (migration 20261126_0022): off by default. */
export interface TeamAdvisorWordingTable {
  team_id: string;
  enabled: boolean;
  /** connection: one of the team's connections; operator: the operator's upstream for optimised keys. */
  source: 'connection' | 'operator';
  /** The connection (source connection); null once it is deleted. */
  connection_id: string | null;
  model: string;
  updated_by: string | null;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

/** A team's GPU cluster (migration 20261126_0023): what its GPUs, exporters and pushes are grouped by. */
export interface GpuClustersTable {
  id: string;
  team_id: string;
  name: string;
  created_at: CreatedAt;
}

/** A DCGM exporter's /metrics URL the `gpu-scrape` job reads for a cluster (checked by the outbound guard). */
export interface GpuScrapeTargetsTable {
  id: string;
  team_id: string;
  cluster_id: string;
  url: string;
  created_by: string;
  created_at: CreatedAt;
  last_scraped_at: Date | null;
  last_error: string | null;
}

/** A key GPU agents push telemetry with: its SHA-256 hash and a visible prefix, never the key. */
export interface GpuIngestKeysTable {
  id: string;
  team_id: string;
  name: string;
  key_hash: string;
  key_prefix: string;
  created_by: string;
  created_at: CreatedAt;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

/** One GPU of a team, by the UUID NVIDIA gives it; model, host and index as last reported. */
export interface GpuDevicesTable {
  id: string;
  team_id: string;
  cluster_id: string;
  gpu_uuid: string;
  model: string | null;
  host: string | null;
  device_index: number | null;
  memory_total_mib: number | null;
  first_seen_at: Date;
  last_seen_at: Date;
}

/** A raw sample, one per GPU and instant (a batch sent twice adds nothing); kept GPU_SAMPLE_RETENTION_HOURS. */
export interface GpuSamplesTable {
  gpu_id: string;
  at: Date;
  utilization_pct: number | null;
  memory_used_mib: number | null;
  power_w: number | null;
}

export type GpuMinuteState = 'active' | 'idle-held' | 'idle';

/** One minute of one GPU as the `gpu-rollup` job classified it; a minute without a row was unreported. */
export interface GpuMinutesTable {
  gpu_id: string;
  minute: Date;
  team_id: string;
  state: GpuMinuteState;
  samples: number;
  peak_utilization_pct: number | null;
  mean_utilization_pct: number | null;
  peak_memory_mib: number | null;
  mean_power_w: number | null;
}

/** A process nvidia-smi saw on a GPU in a minute, with the most memory it held then. */
export interface GpuProcessMinutesTable {
  gpu_id: string;
  minute: Date;
  pid: number;
  process_name: string;
  used_memory_mib: number | null;
}

/** A GPU with samples not rolled up yet: from which instant, and when it was last marked. */
export interface GpuRollupPendingTable {
  gpu_id: string;
  team_id: string;
  changed_from: Date;
  marked_at: Date;
}

/** A team's idle rules (no row: 5 % for 30 minutes). */
export interface GpuSettingsTable {
  team_id: string;
  idle_below_pct: number;
  idle_after_minutes: number;
  updated_by: string;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

/** What an hour of a GPU model costs the team, GBP micros. */
export interface GpuPricesTable {
  team_id: string;
  model: string;
  per_hour_micros: Int8;
  updated_by: string;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

/** How one IdP group maps: to a team role, and optionally to a role in one of the team's groups. */
export interface SsoRoleMapping {
  idpGroup: string;
  teamRole: TeamRole;
  groupId: string | null;
  groupRole: GroupRole | null;
}

/** A team's OIDC identity provider (one per team). */
export interface SsoProvidersTable {
  id: string;
  team_id: string;
  issuer: string;
  client_id: string;
  /** The client secret, sealed with the team's data key. */
  secret_ciphertext: Uint8Array;
  secret_key_version: number;
  enforced: boolean;
  /** The ID-token claim that lists the person's IdP groups. */
  groups_claim: string;
  /** The team role of someone in no mapped group; null lets only mapped groups in. */
  default_team_role: TeamRole | null;
  role_mappings: Json<SsoRoleMapping[]>;
  updated_by: string;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

/** An e-mail domain an IdP claims (lower case): it owns it once the token was found in DNS. */
export interface SsoDomainsTable {
  domain: string;
  provider_id: string;
  /** Published by the domain's owner as TXT _spendgate-challenge.<domain> = spendgate-domain-verification=<token>. */
  verification_token: string;
  verified_at: Date | null;
}

/** An IdP identity (issuer, subject) linked to an account at its first SSO sign-in. */
export interface SsoIdentitiesTable {
  issuer: string;
  subject: string;
  user_id: string;
  created_at: CreatedAt;
}

/** A sign-in through an IdP under way: its state's hash, taken once at the callback. */
export interface SsoSignInsTable {
  state_hash: string;
  provider_id: string;
  expires_at: Date;
  called_back_at: Date | null;
  created_at: CreatedAt;
}

export interface Database {
  users: UsersTable;
  teams: TeamsTable;
  team_price_overrides: TeamPriceOverridesTable;
  budgets: BudgetsTable;
  alert_channels: AlertChannelsTable;
  alert_events: AlertEventsTable;
  alert_deliveries: AlertDeliveriesTable;
  alert_delivery_attempts: AlertDeliveryAttemptsTable;
  team_members: TeamMembersTable;
  synthetic_groups: SyntheticGroupsTable;
  synthetic_group_members: SyntheticGroupMembersTable;
  audit_log: AuditLogTable;
  audit_chains: AuditChainsTable;
  team_data_keys: TeamDataKeysTable;
  provider_connections: ProviderConnectionsTable;
  issued_keys: IssuedKeysTable;
  price_catalog_versions: PriceCatalogVersionsTable;
  usage_request_ids: UsageRequestIdsTable;
  usage_events: UsageEventsTable;
  usage_rollups: UsageRollupsTable;
  spend_forecasts: SpendForecastsTable;
  forecast_backtests: ForecastBacktestsTable;
  advisor_insights: AdvisorInsightsTable;
  demo_fills: DemoFillsTable;
  rollup_rebuilds: RollupRebuildsTable;
  subscription_plans: SubscriptionPlansTable;
  subscriptions: SubscriptionsTable;
  subscription_plan_history: SubscriptionPlanHistoryTable;
  payment_methods: PaymentMethodsTable;
  plan_units: PlanUnitsTable;
  invoices: InvoicesTable;
  invoice_number_counters: InvoiceNumberCountersTable;
  invoice_lines: InvoiceLinesTable;
  usage_records: UsageRecordsTable;
  stripe_events: StripeEventsTable;
  stripe_objects: StripeObjectsTable;
  stripe_checkouts: StripeCheckoutsTable;
  faqs: FaqsTable;
  contact_forms: ContactFormsTable;
  contact_form_submissions: ContactFormSubmissionsTable;
  email_otps: EmailOtpsTable;
  rate_limit_hits: RateLimitHitsTable;
  mail_outbox: MailOutboxTable;
  usage_outbox: UsageOutboxTable;
  invitations: InvitationsTable;
  team_capture_settings: TeamCaptureSettingsTable;
  group_capture_settings: GroupCaptureSettingsTable;
  prompt_captures: PromptCapturesTable;
  team_advisor_wording: TeamAdvisorWordingTable;
  sso_providers: SsoProvidersTable;
  sso_domains: SsoDomainsTable;
  sso_identities: SsoIdentitiesTable;
  sso_sign_ins: SsoSignInsTable;
  gpu_clusters: GpuClustersTable;
  gpu_scrape_targets: GpuScrapeTargetsTable;
  gpu_ingest_keys: GpuIngestKeysTable;
  gpu_devices: GpuDevicesTable;
  gpu_samples: GpuSamplesTable;
  gpu_minutes: GpuMinutesTable;
  gpu_process_minutes: GpuProcessMinutesTable;
  gpu_rollup_pending: GpuRollupPendingTable;
  gpu_settings: GpuSettingsTable;
  gpu_prices: GpuPricesTable;
  team_retention: TeamRetentionTable;
  spend_digests: SpendDigestsTable;
  spend_digest_sends: SpendDigestSendsTable;
}

/** A team's own retention; null: the deployment's default (also the longest it may set). */
export interface TeamRetentionTable {
  team_id: string;
  usage_event_days: number | null;
  gpu_sample_hours: number | null;
  updated_by: string | null;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface SpendDigestsTable {
  team_id: string;
  user_id: string;
  frequency: DigestFrequency;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface SpendDigestSendsTable {
  team_id: string;
  user_id: string;
  frequency: DigestFrequency;
  /** The period's first local day (yyyy-mm-dd). */
  period_start: ColumnType<string, string, string>;
  sent_at: ColumnType<Date, Date | undefined, Date>;
}

export type User = Selectable<UsersTable>;
export type Team = Selectable<TeamsTable>;
export type SyntheticGroup = Selectable<SyntheticGroupsTable>;
export type ProviderConnection = Selectable<ProviderConnectionsTable>;
export type IssuedKey = Selectable<IssuedKeysTable>;
export type NewUsageEvent = Insertable<UsageEventsTable>;
