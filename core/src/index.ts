// @spendgate/core: the pure domain shared by gateway, worker and console — money,
// usage, the versioned price catalog, request costing and the routing policy. No I/O, no clock.

export {
  type AdvisorChange,
  type AdvisorConnection,
  type AdvisorInput,
  type AdvisorKey,
  type Confidence,
  detectFindings,
  type Finding,
  type FindingKind,
  IDLE_DAYS,
  type UsageSlice,
} from './advisor/detectors.ts';
export { ADVISOR_WORDING_ROUTE, acceptRewording, describeFinding, rewordingPrompt, type Wording } from './advisor/wording.ts';
export {
  ALERT_CHANNEL_KINDS,
  type AlertKind,
  type AlertText,
  breachAlertText,
  breachDedupeKey,
  type BudgetSpend,
  type ForecastBounds,
  HOURLY_HISTORY_HOURS,
  type HourlyBand,
  hourlyBand,
  hourlySpikeAlertText,
  hourlySpikeDedupeKey,
  isE164,
  isSpendSpike,
  projectedBreach,
  type SpendCell,
  SPIKE_MIN_EXCESS_MICROS,
  spikeAlertText,
  spikeContributors,
  spikeDedupeKey,
  slackMessage,
  smsBody,
  teamsMessage,
  testAlertText,
  thresholdAlertText,
  thresholdDedupeKey,
  thresholdsReached,
} from './alerts/index.ts';
export { AVATAR_DATA_URL_MAX_LENGTH, AVATAR_URL_MAX_LENGTH, avatarProblem } from './avatar.ts';
export {
  type Bill,
  type BillingRule,
  billRequest,
  FX_RATES,
  type FxRate,
  fxRateAt,
  type KeyKind,
  teamSpendMicros,
  usdToGbp,
} from './billing.ts';
export {
  BUDGET_MODES,
  BUDGET_SCOPES,
  BUDGET_WINDOWS,
  type Budget,
  type BudgetMode,
  type BudgetScope,
  type BudgetWindow,
  type BudgetWindowSpan,
  budgetLedgerScope,
  budgetWindowAt,
  isValidTimeZone,
  localDay,
  localDayStart,
  localMinute,
} from './budgets.ts';
export {
  AppError,
  ConflictError,
  EmailNotVerifiedError,
  ForbiddenError,
  FormError,
  NotFoundError,
  PlanLimitError,
  TooManyRequestsError,
  UnauthorizedError,
  UpstreamError,
  ValidationError,
} from './errors.ts';
export {
  addDays,
  type Backtest,
  backtestSteps,
  coverageCount,
  detectSeasonalPeriods,
  type ForecastInput,
  forecastSeries,
  forecastSteps,
  mase,
  type MonthProjection,
  msis,
  projectionHorizon,
  projectMonths,
  type SeriesForecast,
  seasonalNaiveScale,
  sliced,
  smape,
} from './forecast/index.ts';
export { classifyGpuSlots, countGpuSlots, DEFAULT_IDLE_RULES, type GpuSlot, type GpuSlotState, gpuTimeCostMicros, type IdleRules } from './gpu/idle.ts';
export { COMPUTE_APPS_FIELDS, type GpuProcessSample, type GpuSample, type Parsed, parseDcgmMetrics, parseNvidiaSmiComputeApps, parseNvidiaSmiGpus } from './gpu/telemetry.ts';
export {
  addMonthsClamped,
  buildInvoice,
  type ChargeCount,
  type ChargedRule,
  type Invoice,
  type InvoiceInput,
  type InvoiceLine,
  type InvoiceLineKind,
  invoiceLineKey,
  meterUnitMicros,
  microsToPence,
  type PlanSegment,
  periodEndAfter,
  RECORDED_METERS,
  type RecordedMeter,
  type TeamCounts,
  type UnitKind,
  type UnitSpan,
} from './invoices.ts';
export {
  KEY_SETTING_LIMITS,
  type KeySettingChange,
  type KeySettingProblem,
  type KeySettings,
  type ModelOverride,
  modelOverrideProblem,
  type RoutingWeights,
  withKeySettingChange,
} from './key-settings.ts';
export {
  LATENCY_BUCKET_BOUNDS_MS,
  LATENCY_BUCKETS,
  latencyBucket,
  latencyPercentile,
  mergeLatencyHistograms,
} from './latency-histogram.ts';
export {
  addMoney,
  type Currency,
  decimalToMicros,
  formatMoney,
  MICROS_PER_UNIT,
  type Money,
  microsToDecimalString,
  money,
  roundHalfUpDiv,
} from './money.ts';
export {
  type AlertChannel,
  FREE_TRIAL_DAYS,
  PLANS,
  type PlanSlug,
  type PlanTerms,
  type PriceTier,
  planTerms,
  seatMonthlyMicros,
  seatsMonthlyMicros,
} from './plans.ts';
export {
  findPrice,
  fineTunedBase,
  type ModelPrice,
  type PriceCatalog,
  type PriceCatalogVersion,
  priceCatalog,
  priceVersionAt,
} from './pricing/catalog.ts';
export { costOfRequest, type RequestCost } from './pricing/cost.ts';
export { type PricedRequest, priceRequest, type RequestToPrice, worstCaseSpendMicros } from './pricing/price-request.ts';
export {
  type Access,
  type Action,
  type Decision,
  decide,
  effectiveGroupRole,
  GROUP_ROLES,
  type GroupRole,
  PERMISSIONS,
  TEAM_ROLES,
  type TeamRole,
} from './roles.ts';
export { type BackoffOptions, DEFAULT_BACKOFF, parseRetryAfterMs, retryDelayMs } from './routing/backoff.ts';
export {
  type BreakerOptions,
  CircuitBreaker,
  type CircuitState,
  DEFAULT_BREAKER_OPTIONS,
  LatencyAverage,
} from './routing/health.ts';
export {
  describeWeights,
  normaliseWeights,
  type RequestNeeds,
  type RouteCandidate,
  rankCandidates,
  unmetNeed,
} from './routing/policy.ts';
export { MODEL_PROFILES, type ModelFeatures, type ModelProfile, maxOutputTokensOf, modelProfile, type QualityTier } from './routing/profiles.ts';
export {
  type SubscriptionAccess,
  type SubscriptionState,
  type SubscriptionStatus,
  statusAt,
  subscriptionAccess,
} from './subscription-access.ts';
export { addUsage, emptyUsage, plainUsage, totalTokens, type Usage, validateUsage } from './usage.ts';
