// alert-check: compares every budget's spend in its current window (in the team's calendar,
// read from the usage rollups: sumBudgetSpend) with its alert thresholds, and with the stored
// spend forecast (the `forecast` job's) for a projected breach; every team's and group's spend
// of today and yesterday with that day's forecast for a spike; and their spend of this UTC
// hour and the last with the hour's band (core's hourlyBand, from the hourly rollups) for an
// hourly spike; and every GPU of a team with GPU analytics whose newest minutes hold memory
// while idle (the gpu-rollup job's idle-held minutes) for an idle-GPU alert. Each alert is
// recorded once — per (budget, window, threshold), (budget, window) for a breach, (scope,
// day) or (scope, hour) for a spike, (GPU, stretch) for an idle GPU: the alert's unique dedupe
// key decides between checks that race, and a new window re-arms it. Each new alert gets a delivery per channel the team's plan allows, sent by
// `alert-deliver`.
import {
  addDays,
  breachAlertText,
  breachDedupeKey,
  type BudgetSpend,
  budgetWindowAt,
  type ForecastBounds,
  gpuIdleAlertText,
  gpuIdleDedupeKey,
  heldStretchAtEnd,
  HOURLY_HISTORY_HOURS,
  type HourlyBand,
  hourlyBand,
  hourlySpikeAlertText,
  hourlySpikeDedupeKey,
  isSpendSpike,
  localDay,
  localDayStart,
  localMinute,
  planTerms,
  type PlanSlug,
  projectedBreach,
  SPIKE_MIN_EXCESS_MICROS,
  spikeAlertText,
  spikeContributors,
  spikeDedupeKey,
  thresholdAlertText,
  thresholdDedupeKey,
  thresholdsReached,
} from '@spendgate/core';
import {
  alertRecorded,
  type ForecastDayRow,
  findTeamSubscription,
  firedThresholds,
  gpuStatesSince,
  hourlySpendByScope,
  type JobPayloads,
  type JobQueue,
  listAlertChannels,
  listBudgetsWithAlerts,
  listForecastsForAlerts,
  listGpusHeldIdle,
  readForecast,
  recordAlert,
  spendByKeyAndModel,
  spendSeriesMicros,
  type SqlStore,
  sumBudgetSpend,
} from '@spendgate/store';
import { hasGpuAnalytics } from './gpu-scrape.ts';

/** A GPU's idle stretch alerts while its newest minute is at most this old (a GPU that stopped reporting does not). */
export const IDLE_GPU_FRESH_MS = 10 * 60_000;
/** How far back an idle stretch is followed to its first minute. */
const IDLE_GPU_LOOK_BACK_MS = 7 * 24 * 3_600_000;

/** A spike's key and model are blamed against their mean day over this many days before it. */
export const SPIKE_BASELINE_DAYS = 7;
/** An hourly spike's key and model are blamed against their mean hour over this many hours (a week) before it. */
export const SPIKE_BASELINE_HOURS = 168;
const HOUR_MS = 3_600_000;

/** The channels of a team its plan lets alerts go to (e-mail on every plan; Slack, Teams, SMS on Enterprise). */
export async function deliverableChannels(db: SqlStore['db'], teamId: string) {
  const subscription = await findTeamSubscription(db, teamId);
  const allowed = planTerms((subscription?.plan_slug ?? 'free-trial') as PlanSlug).alertChannels;
  return (await listAlertChannels(db, teamId)).filter((channel) => allowed.includes(channel.kind));
}

/** Hands each delivery to its job; the job id is the delivery's, so a second hand-over while pending is ignored. */
export async function enqueueDeliveries(queue: Pick<JobQueue<JobPayloads>, 'enqueue'>, deliveryIds: readonly string[]): Promise<void> {
  for (const deliveryId of deliveryIds) await queue.enqueue('alert-deliver', { deliveryId }, { jobId: `alert-deliver-${deliveryId}` });
}

const bounds = (day: ForecastDayRow): ForecastBounds => ({
  date: day.date,
  upper80Micros: day.upper80Micros === null ? null : BigInt(day.upper80Micros),
  upper95Micros: day.upper95Micros === null ? null : BigInt(day.upper95Micros),
});

type AlertBudget = Awaited<ReturnType<typeof listBudgetsWithAlerts>>[number];

export function createAlertCheckProcessor(deps: { sql: Pick<SqlStore, 'db'>; queue: Pick<JobQueue<JobPayloads>, 'enqueue'>; now?: () => Date }) {
  const { db } = deps.sql;
  const now = deps.now ?? (() => new Date());

  async function record(alert: Parameters<typeof recordAlert>[1]): Promise<void> {
    const recorded = await recordAlert(db, alert, await deliverableChannels(db, alert.team_id));
    if (recorded) await enqueueDeliveries(deps.queue, recorded.deliveryIds);
  }

  async function checkThresholds(budget: AlertBudget, spend: BudgetSpend, details: Record<string, unknown>): Promise<void> {
    const reached = thresholdsReached(spend);
    if (reached.length === 0) return;
    const fired = new Set(await firedThresholds(db, budget.id, spend.windowLabel));
    for (const percent of reached.filter((percent) => !fired.has(percent))) {
      const text = thresholdAlertText(spend, percent);
      await record({
        team_id: budget.team_id,
        kind: 'threshold',
        dedupe_key: thresholdDedupeKey(budget.id, spend.windowLabel, percent),
        budget_id: budget.id,
        threshold_percent: percent,
        window_label: spend.windowLabel,
        subject: text.subject,
        message: text.text,
        details,
      });
    }
  }

  /**
   * A projected breach of a hard or soft cap (a downgrade budget switches models rather than
   * running out) in a window with an end ('total' has none). Forecasts are stored for teams
   * and groups only, so a key's budget, like any scope without a stored forecast covering
   * today, gets no projected-breach alert (its thresholds still fire).
   */
  async function checkBreach(budget: AlertBudget, spend: BudgetSpend, window: { start: Date; end: Date }, at: Date, details: Record<string, unknown>): Promise<void> {
    if (budget.mode === 'downgrade' || budget.scope === 'key') return;
    const dedupeKey = breachDedupeKey(budget.id, spend.windowLabel);
    if (await alertRecorded(db, budget.team_id, dedupeKey)) return;
    const today = localDay(at, budget.time_zone);
    const lastDay = localDay(new Date(window.end.getTime() - 1), budget.time_zone);
    const scopeId = budget.scope === 'team' ? budget.team_id : budget.scope_id;
    const periods = [...new Set([today.slice(0, 7), lastDay.slice(0, 7)])];
    const forecasts = (await Promise.all(periods.map((period) => readForecast(db, scopeId, period)))).filter((forecast) => forecast !== null);
    if (forecasts.length === 0) return;
    const todayStart = localDayStart(today, budget.time_zone);
    const spentTodayMicros = await sumBudgetSpend(db, { teamId: budget.team_id, scope: budget.scope, scopeId: budget.scope_id, from: todayStart, to: window.end });
    const breach = projectedBreach({
      amountMicros: spend.amountMicros,
      spentBeforeTodayMicros: spend.spentMicros - spentTodayMicros,
      spentTodayMicros,
      today,
      lastDay,
      days: forecasts.flatMap((forecast) => forecast.days.map(bounds)),
    });
    if (!breach) return;
    const text = breachAlertText(spend, breach);
    await record({
      team_id: budget.team_id,
      kind: 'breach',
      dedupe_key: dedupeKey,
      budget_id: budget.id,
      threshold_percent: null,
      window_label: spend.windowLabel,
      subject: text.subject,
      message: text.text,
      details: { ...details, breachDate: breach.date, projectedMicros: breach.projectedMicros.toString(), bound: 'upper80' },
    });
  }

  async function checkBudget(budget: AlertBudget, at: Date): Promise<void> {
    const window = budgetWindowAt(budget.window, at, budget.time_zone);
    const spentMicros = await sumBudgetSpend(db, { teamId: budget.team_id, scope: budget.scope, scopeId: budget.scope_id, from: window.start, to: window.end });
    const spend: BudgetSpend = {
      budgetId: budget.id,
      scope: budget.scope,
      scopeName: budget.scope_name,
      window: budget.window,
      windowLabel: window.label,
      amountMicros: BigInt(budget.amount_micros),
      spentMicros,
      alertAt: budget.alert_at,
    };
    const details = { scope: budget.scope, scopeId: budget.scope_id, scopeName: budget.scope_name, mode: budget.mode, window: budget.window, amountMicros: spend.amountMicros.toString(), spentMicros: spentMicros.toString() };
    await checkThresholds(budget, spend, details);
    if (window.start && window.end) await checkBreach(budget, spend, { start: window.start, end: window.end }, at, details);
  }

  /**
   * Today's and yesterday's spend of each team and group with a stored forecast against that
   * day's upper 95 % bound (today's spend so far already above the whole day's bound is a
   * spike). Days the forecast holds only as actuals (re-forecast since) are not checked.
   */
  async function checkSpikes(at: Date): Promise<void> {
    const utcToday = at.toISOString().slice(0, 10);
    // Every team's today and yesterday lie within a day of UTC's.
    const periods = [...new Set([addDays(utcToday, -2), utcToday, addDays(utcToday, 1)].map((day) => day.slice(0, 7)))];
    for (const forecast of await listForecastsForAlerts(db, periods)) {
      const today = localDay(at, forecast.time_zone);
      for (const day of forecast.days.map(bounds)) {
        if (day.upper95Micros === null || day.date > today || day.date < addDays(today, -1)) continue;
        const dedupeKey = spikeDedupeKey(forecast.scope_id, day.date);
        if (await alertRecorded(db, forecast.team_id, dedupeKey)) continue;
        const [dayStart, dayEnd] = [localDayStart(day.date, forecast.time_zone), localDayStart(addDays(day.date, 1), forecast.time_zone)];
        const scope = { teamId: forecast.team_id, groupId: forecast.group_id };
        const actualMicros = (await spendSeriesMicros(db, { ...scope, from: dayStart, to: dayEnd, grain: 'day' })).reduce((sum, bucket) => sum + bucket.micros, 0n);
        if (!isSpendSpike(actualMicros, day.upper95Micros)) continue;
        const baselineStart = localDayStart(addDays(day.date, -SPIKE_BASELINE_DAYS), forecast.time_zone);
        const contributors = spikeContributors(
          await spendByKeyAndModel(db, { ...scope, from: dayStart, to: dayEnd, grain: 'day' }),
          await spendByKeyAndModel(db, { ...scope, from: baselineStart, to: dayStart, grain: 'day' }),
          SPIKE_BASELINE_DAYS,
        );
        const scopeKind = forecast.group_id === null ? 'team' : 'group';
        const text = spikeAlertText({ scope: scopeKind, scopeName: forecast.scope_name, date: day.date, actualMicros, upper95Micros: day.upper95Micros, contributors });
        await record({
          team_id: forecast.team_id,
          kind: 'spike',
          dedupe_key: dedupeKey,
          budget_id: null,
          threshold_percent: null,
          window_label: day.date,
          subject: text.subject,
          message: text.text,
          details: {
            scope: scopeKind,
            grain: 'day',
            scopeId: forecast.scope_id,
            scopeName: forecast.scope_name,
            actualMicros: actualMicros.toString(),
            upper95Micros: day.upper95Micros.toString(),
            key: contributors?.key.name ?? null,
            model: contributors?.model.name ?? null,
          },
        });
      }
    }
  }

  /**
   * Each scope's band for an hour, by scope and the hour's start: it reads only the hours
   * before it, so it is worked out once per hour (per worker), for the hours still checked.
   */
  const bands = new Map<string, HourlyBand | null>();

  async function bandOf(scope: { teamId: string; groupId: string | null }, hourStart: Date): Promise<HourlyBand | null> {
    const cacheKey = `${scope.groupId ?? scope.teamId}:${hourStart.getTime()}`;
    if (bands.has(cacheKey)) return bands.get(cacheKey)!;
    const from = new Date(hourStart.getTime() - HOURLY_HISTORY_HOURS * HOUR_MS);
    const spent = new Map((await spendSeriesMicros(db, { ...scope, from, to: hourStart, grain: 'hour' })).map((hour) => [hour.start.getTime(), hour.micros]));
    const history = Array.from({ length: HOURLY_HISTORY_HOURS }, (_, index) => spent.get(from.getTime() + index * HOUR_MS) ?? 0n);
    const band = hourlyBand(history);
    bands.set(cacheKey, band);
    return band;
  }

  /**
   * This UTC hour's spend so far and the last hour's, of each team and group, against the
   * hour's band (this hour's spend so far already above the whole hour's bound is a spike).
   * Only scopes that spent at least the £1 a spike must exceed its bound by are looked at.
   */
  async function checkHourlySpikes(at: Date): Promise<void> {
    const thisHour = Math.floor(at.getTime() / HOUR_MS) * HOUR_MS;
    for (const cacheKey of bands.keys()) if (Number(cacheKey.split(':')[1]) < thisHour - HOUR_MS) bands.delete(cacheKey);
    const spent = await hourlySpendByScope(db, { from: new Date(thisHour - HOUR_MS), to: new Date(thisHour + HOUR_MS), atLeastMicros: SPIKE_MIN_EXCESS_MICROS });
    for (const hour of spent) {
      const scope = { teamId: hour.team_id, groupId: hour.group_id };
      const scopeId = hour.group_id ?? hour.team_id;
      const dedupeKey = hourlySpikeDedupeKey(scopeId, hour.hour_start);
      if (await alertRecorded(db, hour.team_id, dedupeKey)) continue;
      const band = await bandOf(scope, hour.hour_start);
      if (band === null || !isSpendSpike(hour.micros, band.upperMicros)) continue;
      const hourEnd = new Date(hour.hour_start.getTime() + HOUR_MS);
      const contributors = spikeContributors(
        await spendByKeyAndModel(db, { ...scope, from: hour.hour_start, to: hourEnd, grain: 'hour' }),
        await spendByKeyAndModel(db, { ...scope, from: new Date(hour.hour_start.getTime() - SPIKE_BASELINE_HOURS * HOUR_MS), to: hour.hour_start, grain: 'hour' }),
        SPIKE_BASELINE_HOURS,
      );
      const scopeKind = hour.group_id === null ? 'team' : 'group';
      const localStart = localMinute(hour.hour_start, hour.time_zone);
      const text = hourlySpikeAlertText({ scope: scopeKind, scopeName: hour.scope_name, localStart, actualMicros: hour.micros, band, contributors });
      await record({
        team_id: hour.team_id,
        kind: 'spike',
        dedupe_key: dedupeKey,
        budget_id: null,
        threshold_percent: null,
        window_label: localStart,
        subject: text.subject,
        message: text.text,
        details: {
          scope: scopeKind,
          grain: 'hour',
          scopeId,
          scopeName: hour.scope_name,
          hourStart: hour.hour_start.toISOString(),
          actualMicros: hour.micros.toString(),
          expectedMicros: band.expectedMicros.toString(),
          upperMicros: band.upperMicros.toString(),
          period: band.period,
          key: contributors?.key.name ?? null,
          model: contributors?.model.name ?? null,
        },
      });
    }
  }

  /** Each GPU holding memory while idle (its newest minutes idle-held), of a team whose plan has GPU analytics: once per stretch. */
  async function checkIdleGpus(at: Date): Promise<void> {
    const allowed = new Map<string, boolean>();
    for (const gpu of await listGpusHeldIdle(db, new Date(at.getTime() - IDLE_GPU_FRESH_MS))) {
      if (!allowed.has(gpu.team_id)) allowed.set(gpu.team_id, await hasGpuAnalytics(db, gpu.team_id));
      if (!allowed.get(gpu.team_id)) continue;
      const held = heldStretchAtEnd(await gpuStatesSince(db, gpu.gpu_id, new Date(gpu.minute.getTime() - IDLE_GPU_LOOK_BACK_MS)));
      if (!held) continue;
      const since = new Date(held.start);
      const dedupeKey = gpuIdleDedupeKey(gpu.gpu_id, since);
      if (await alertRecorded(db, gpu.team_id, dedupeKey)) continue;
      const idle = { index: gpu.device_index, host: gpu.host, gpuUuid: gpu.gpu_uuid, cluster: gpu.cluster_name, model: gpu.model, since, minutes: held.slots, heldMiB: held.peakMemoryMiB, peakUtilizationPct: held.peakUtilizationPct };
      const text = gpuIdleAlertText(idle);
      await record({
        team_id: gpu.team_id,
        kind: 'gpu-idle',
        dedupe_key: dedupeKey,
        budget_id: null,
        threshold_percent: null,
        window_label: since.toISOString(),
        subject: text.subject,
        message: text.text,
        details: { ...idle, gpuId: gpu.gpu_id, since: since.toISOString() },
      });
    }
  }

  return async (): Promise<void> => {
    const at = now();
    for (const budget of await listBudgetsWithAlerts(db)) await checkBudget(budget, at);
    await checkSpikes(at);
    await checkHourlySpikes(at);
    await checkIdleGpus(at);
  };
}
