// The usage calls' answers (spec §7, read from the rollups) as /api/usage answers them:
// totals, a day or hour series, this month beside last, distributions, the request log,
// and the demo team POST /api/demo/team makes. Amounts are decimal strings in GBP (what
// budgets counted) with the providers' USD list price beside; an unpriced request's
// cost is null in the log and counted apart in totals, never as 0.

/** The filters a usage call takes and echoes: a team (its admins) or a group, narrowed. */
export interface UsageFilters {
  teamId?: string;
  groupId?: string;
  keyId?: string;
  model?: string;
  provider?: string;
  /** yyyy-mm-dd in the team's time zone; the API defaults to the last 30 days. */
  startDate?: string;
  endDate?: string;
}

export type Granularity = 'day' | 'hour';
export type DistributionDimension = 'model' | 'provider' | 'key' | 'group' | 'connection';
export type ExportFormat = 'csv' | 'focus';

export interface UsageScope {
  teamId: string;
  groupId?: string;
  connectionId?: string;
  keyId?: string;
  model?: string;
  provider?: string;
  startDate: string;
  endDate: string;
  timeZone: string;
}

export interface UsageAmounts {
  currency: 'GBP';
  totalCost: string;
  totalCostMicros: string;
  costCurrencyUsd: 'USD';
  totalCostUsd: string;
  totalCostUsdMicros: string;
  billedCost: string;
  requests: number;
  errors: number;
  totalTokens: number;
  inputTokens: number;
  cachedReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  unpricedRequests: number;
  estimatedRequests: number;
}

/** The one totals answer: GET /usage/group/specific, /usage/group, a group's or a connection's usage, /usage/team's thisMonth. */
export interface UsageTotals extends UsageScope, UsageAmounts {
  /** From the latency histogram, within its bucket's width; null without requests. */
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
}

/** GET /usage/cost/group: every day (yyyy-mm-dd) or hour (ISO instant) of the range, zeros included. */
export interface UsageSeries extends UsageScope, UsageAmounts {
  granularity: Granularity;
  series: { date: string; cost: string; costUsd: string; requests: number; totalTokens: number }[];
}

export interface MonthDays {
  total: string;
  days: { date: string; cost: string; cumulativeCost: string }[];
}

/** GET /usage/cost/group/specific: this month day by day, cumulative, beside last month (null beyond the plan's look-back). */
export interface UsageMonthToDate extends UsageScope {
  currency: 'GBP';
  thisMonth: MonthDays;
  lastMonth: MonthDays | null;
}

/** GET /usage/distribution/group (and /specific for one group), largest cost first. */
export interface UsageDistribution extends UsageScope {
  by: DistributionDimension;
  currency: 'GBP';
  totalCost: string;
  items: { key: string; label: string; cost: string; costUsd: string; requests: number; totalTokens: number; share: number; unpricedRequests: number }[];
}

export interface RequestLogItem {
  requestId: string;
  occurredAt: string;
  /** Null (with keyId) for the AI advisor's wording, a call the team made without a key. */
  groupId: string | null;
  groupName: string | null;
  keyId: string | null;
  keyName: string | null;
  keyPrefix: string | null;
  keyKind: string;
  provider: string;
  model: string;
  endpoint: string;
  route: string | null;
  statusCode: number;
  streamed: boolean;
  estimated: boolean;
  unpriced: boolean;
  inputTokens: number;
  cachedReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  totalTokens: number;
  currency: 'GBP';
  /** Null when the request is unpriced. */
  cost: string | null;
  costUsd: string | null;
  latencyMs: number;
}

/** GET /usage/requests: a page, newest first; nextCursor null on the last. */
export interface RequestLogPage {
  teamId: string;
  startDate: string;
  endDate: string;
  timeZone: string;
  items: RequestLogItem[];
  nextCursor: string | null;
}

/** How far a demo team's sample usage has been recorded: in the background, a day at a time, oldest first. */
export interface DemoStatus {
  state: 'filling' | 'filled';
  days: number;
  daysFilled: number;
  /** Sample requests recorded so far. */
  requests: number;
}

/** POST /demo/team: the team, made at once, its usage `filling`. */
export interface DemoTeam extends DemoStatus {
  teamId: string;
  name: string;
}

/** How far behind the primary database the usage figures may be (GET /api/usage/freshness): 0 when read from the primary. */
export interface DataFreshness {
  behindSeconds: number;
  /** Each read replica's lag (null: unreachable) and whether it serves reads; none without replicas. */
  replicas: { lagSeconds: number | null; serving: boolean }[];
}
