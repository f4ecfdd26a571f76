/**
 * The AI advisor (issue 23): runs core's detectors on a team's own usage (the groups,
 * keys and days a caller names; by default the whole team's last 30 days), records each
 * finding as an insight charged at the plan's price once — a finding found again is
 * refreshed, never charged again; a demo team's are free (core's isCharged) — and applies an insight's change in one click (an idle
 * key is revoked, a model override or output cap merged into the key's settings, both
 * through the keys service, audited and sent to the gateways as a manual edit is; a
 * manual change is marked made). Once applied,
 * the saving actually realised is measured on the key (on its model too for a reasoning
 * effort change, which keeps the model): the daily spend of the days since against the
 * window before, scaled to 30 days. Team
 * admins only: the advisor reads the whole team's usage. Wording is templated, or, when the
 * team has turned it on (a setting: one of its connections or the operator's upstream, and a
 * model), written by that model (advisor-wording.ts); numbers always come from the detectors.
 */
import { randomUUID } from 'node:crypto';
import {
  type AdvisorChange,
  ConflictError,
  type AdvisorGpu,
  describeFinding,
  detectFindings,
  type Finding,
  GPU_WINDOW_DAYS,
  type KeyKind,
  microsToDecimalString,
  NotFoundError,
  type PriceCatalog,
  roundHalfUpDiv,
  type Wording,
} from '@spendgate/core';
import {
  type AdvisorInsightsTable,
  advisorConnections,
  advisorKeys,
  advisorOutputLimitSlices,
  advisorRepeatSlices,
  advisorUsageSlices,
  findInsightById,
  gpuIdleStretches,
  listGpuDevices,
  listGpuPrices,
  listInsights,
  markInsightApplied,
  recordInsight,
  subjectSpend,
} from '@spendgate/store';
import type { Selectable } from 'kysely';
import type { AdvisorWording } from './advisor-wording.ts';
import type { GroupService } from './groups.ts';
import { type UsageDeps, usageScope } from './usage-analytics.ts';

const DAY_MS = 86_400_000;
const MONTH_DAYS = 30n;
/** The most idle stretches a GPU finding reads for a team's week. */
const GPU_STRETCH_LIMIT = 1_000;

/** What a generate call analyses: some groups, some keys (both optional: the whole team) and at most one date range. */
export type AdvisorTarget = { type: 'group'; id: string } | { type: 'key'; id: string } | { type: 'dateRange'; startDate: string; endDate: string };

export interface AdvisorDeps extends UsageDeps {
  catalog: PriceCatalog;
  /** The price-catalog providers of Spendgate's own accounts: what optimised keys can be sent to. */
  operatorProviders: readonly string[];
  groups: Pick<GroupService, 'revokeKey' | 'changeKeySettings'>;
  wording: AdvisorWording;
}

type InsightRow = Selectable<AdvisorInsightsTable>;

const days = (startDate: string, endDate: string) => Math.round((Date.parse(`${endDate}T00:00:00Z`) - Date.parse(`${startDate}T00:00:00Z`)) / DAY_MS) + 1;

export function createAdvisor(deps: AdvisorDeps) {
  const { db } = deps.sql;
  const now = deps.now ?? (() => new Date());

  /** The saving realised since the change, GBP micros a month; null until a whole day has passed or when it cannot be measured. */
  async function realisedSaving(insight: InsightRow): Promise<bigint | null> {
    if (insight.applied_at === null) return null;
    const change = insight.change;
    if (insight.kind === 'idle-key' && change.action === 'revoke-key') {
      const key = await db.selectFrom('issued_keys').select('revoked_at').where('id', '=', change.keyId).executeTakeFirst();
      return key?.revoked_at ? insight.monthly_saving_micros : 0n;
    }
    // A connection's deletion, a lower output limit and a GPU's idle time change no spend to measure.
    if (insight.kind === 'idle-connection' || insight.kind === 'oversized-output-limit' || insight.kind === 'idle-gpu') return null;
    const appliedAt = insight.applied_at.getTime();
    const daysSince = Math.floor((now().getTime() - appliedAt) / DAY_MS);
    if (daysSince < 1) return null;
    const windowDays = days(insight.window_start, insight.window_end);
    // A change of model or provider moves the key's traffic: measure the whole key. Lower reasoning effort keeps the model: measure that model on the key.
    const sameModel = insight.kind === 'reasoning-heavy';
    const subject = {
      teamId: insight.team_id,
      keyId: insight.key_id,
      connectionId: sameModel ? insight.connection_id : null,
      provider: sameModel ? insight.provider : null,
      model: sameModel ? insight.model : null,
    };
    const before = await subjectSpend(db, subject, new Date(appliedAt - windowDays * DAY_MS), new Date(appliedAt));
    const after = await subjectSpend(db, subject, new Date(appliedAt), new Date(appliedAt + daysSince * DAY_MS));
    return roundHalfUpDiv(before * MONTH_DAYS * BigInt(daysSince) - after * MONTH_DAYS * BigInt(windowDays), BigInt(windowDays * daysSince));
  }

  async function view(insight: InsightRow) {
    const realised = await realisedSaving(insight);
    return {
      id: insight.id,
      kind: insight.kind,
      title: insight.title,
      text: insight.text,
      subject: { keyId: insight.key_id, connectionId: insight.connection_id, provider: insight.provider, model: insight.model },
      evidence: insight.evidence,
      confidence: insight.confidence,
      currency: 'GBP' as const,
      currentCost: microsToDecimalString(insight.current_cost_micros),
      counterfactualCost: microsToDecimalString(insight.counterfactual_cost_micros),
      estimatedMonthlySaving: microsToDecimalString(insight.monthly_saving_micros),
      realisedMonthlySaving: realised === null ? null : microsToDecimalString(realised),
      change: insight.change,
      price: microsToDecimalString(insight.price_micros),
      startDate: insight.window_start,
      endDate: insight.window_end,
      createdAt: insight.created_at,
      refreshedAt: insight.refreshed_at,
      appliedAt: insight.applied_at,
    };
  }

  /** The team's groups and keys named by the targets, each checked to be the team's (else 404). */
  async function checkTargets(teamId: string, groupIds: string[], keyIds: string[]) {
    if (groupIds.length > 0) {
      const found = await db.selectFrom('synthetic_groups').select('id').where('team_id', '=', teamId).where('id', 'in', groupIds).execute();
      if (found.length !== new Set(groupIds).size) throw new NotFoundError('Synthetic group');
    }
    if (keyIds.length > 0) {
      const found = await db.selectFrom('issued_keys').select('id').where('team_id', '=', teamId).where('id', 'in', keyIds).execute();
      if (found.length !== new Set(keyIds).size) throw new NotFoundError('Key');
    }
  }

  /** The team's GPUs idle in the GPU window to `at`, with their stretches and £ an hour (a team whose plan has GPU analytics). */
  async function idleGpus(teamId: string, at: Date): Promise<AdvisorGpu[]> {
    const range = { teamId, from: new Date(at.getTime() - GPU_WINDOW_DAYS * DAY_MS), to: at };
    const [devices, prices, stretches] = await Promise.all([listGpuDevices(db, teamId), listGpuPrices(db, teamId), gpuIdleStretches(db, { ...range, limit: GPU_STRETCH_LIMIT })]);
    const perHour = new Map(prices.map((price) => [price.model, price.per_hour_micros]));
    return devices.flatMap((device) => {
      const own = stretches.filter((stretch) => stretch.gpuId === device.id);
      if (own.length === 0) return [];
      return [
        {
          gpuId: device.id,
          gpuUuid: device.gpu_uuid,
          index: device.device_index,
          host: device.host,
          cluster: device.cluster_name,
          model: device.model,
          pricePerHourMicros: device.model === null ? undefined : perHour.get(device.model),
          stretches: own.map((stretch) => ({ ...stretch, process: stretch.process && { pid: stretch.process.pid, name: stretch.process.name } })),
        },
      ];
    });
  }

  return {
    /** The team's insights, largest saving first, with what they were charged in all (nothing on a demo team). */
    async list(userId: string, teamId: string) {
      await deps.access.team(teamId, userId, 'team.usage.view');
      const [insights, { charged }] = await Promise.all([listInsights(db, teamId), deps.plans.teamTerms(teamId)]);
      return {
        teamId,
        demo: !charged,
        currency: 'GBP' as const,
        totalCharged: microsToDecimalString(insights.reduce((sum, insight) => sum + insight.price_micros, 0n)),
        insights: await Promise.all(insights.map(view)),
      };
    },

    /** Runs the detectors on the targets and records their findings; only new ones are charged. */
    async generate(userId: string, input: { teamId: string; data: AdvisorTarget[] }) {
      const range = input.data.find((target) => target.type === 'dateRange');
      const groupIds = input.data.flatMap((target) => (target.type === 'group' ? [target.id] : []));
      const keyIds = input.data.flatMap((target) => (target.type === 'key' ? [target.id] : []));
      const scope = await usageScope(deps, userId, { teamId: input.teamId, startDate: range?.startDate, endDate: range?.endDate });
      await checkTargets(scope.teamId, groupIds, keyIds);
      const write = await deps.wording.writer(scope.teamId);
      const { terms, charged: teamCharged } = await deps.plans.teamTerms(scope.teamId);
      const priceMicros = teamCharged ? terms.advisorInsightMicros : 0n;
      const { from, to } = scope.filter('day');
      const analysed = { teamId: scope.teamId, from, to, groupIds, keyIds };
      const whole = groupIds.length === 0 && keyIds.length === 0;
      const at = to.getTime() < now().getTime() ? to : now();
      const [slices, repeats, outputLimits, keys, connections, gpus] = await Promise.all([
        advisorUsageSlices(db, analysed),
        advisorRepeatSlices(db, analysed),
        advisorOutputLimitSlices(db, analysed),
        advisorKeys(db, analysed),
        whole ? advisorConnections(db, scope.teamId) : Promise.resolve([]),
        whole && terms.gpuAnalytics ? idleGpus(scope.teamId, at) : Promise.resolve([]),
      ]);
      const findings = detectFindings({
        plan: terms,
        catalog: deps.catalog,
        at,
        windowDays: days(scope.startDate, scope.endDate),
        slices: slices.map((slice) => ({ ...slice, keyKind: slice.keyKind as KeyKind })),
        repeats: repeats.map((slice) => ({ ...slice, keyKind: slice.keyKind as KeyKind })),
        outputLimits: outputLimits.map((slice) => ({ ...slice, keyKind: slice.keyKind as KeyKind })),
        keys,
        connections,
        operatorProviders: deps.operatorProviders,
        gpus,
      });
      let charged = 0n;
      let created = 0;
      let written = 0;
      const recorded: InsightRow[] = [];
      for (const finding of findings) {
        const context = { teamId: scope.teamId, userId, startDate: scope.startDate, endDate: scope.endDate, priceMicros, planSlug: terms.slug };
        const template = describeFinding(finding);
        const worded = write === undefined ? { wording: template, written: false } : await write(template);
        if (worded.written) written += 1;
        const recording = await recordInsight(db, insightRow(finding, worded.wording, context));
        if (recording.created) {
          created += 1;
          charged += recording.insight.price_micros;
        }
        recorded.push(recording.insight);
      }
      return {
        teamId: scope.teamId,
        demo: !teamCharged,
        startDate: scope.startDate,
        endDate: scope.endDate,
        currency: 'GBP' as const,
        found: findings.length,
        created,
        written,
        charged: microsToDecimalString(charged),
        insights: await Promise.all(recorded.map(view)),
      };
    },

    /** Makes an insight's change (revokes an idle key, changes a key's settings; a manual change is marked made) and starts measuring its saving. */
    async apply(userId: string, insightId: string) {
      const insight = await findInsightById(db, insightId);
      if (insight === undefined) throw new NotFoundError('Insight');
      await deps.access.team(insight.team_id, userId, 'team.usage.view').catch((error: unknown) => {
        throw error instanceof NotFoundError ? new NotFoundError('Insight') : error;
      });
      if (insight.applied_at !== null) throw new ConflictError('This insight has already been applied');
      const change: AdvisorChange = insight.change;
      if (change.action === 'revoke-key') {
        const key = await db.selectFrom('issued_keys').select('revoked_at').where('id', '=', change.keyId).where('team_id', '=', insight.team_id).executeTakeFirst();
        if (key && key.revoked_at === null) await deps.groups.revokeKey(userId, change.keyId);
      }
      if (change.action === 'key-setting') await deps.groups.changeKeySettings(userId, change.keyId, change.settings);
      const applied = await markInsightApplied(db, insight.team_id, insightId, userId, now());
      if (applied === undefined) throw new ConflictError('This insight has already been applied');
      return view(applied);
    },
  };
}

function insightRow(
  finding: Finding,
  wording: Wording,
  context: { teamId: string; userId: string; startDate: string; endDate: string; priceMicros: bigint; planSlug: string },
) {
  return {
    id: randomUUID(),
    team_id: context.teamId,
    fingerprint: finding.fingerprint,
    kind: finding.kind,
    key_id: finding.subject.keyId,
    connection_id: finding.subject.connectionId,
    provider: finding.subject.provider,
    model: finding.subject.model,
    title: wording.title,
    text: wording.text,
    evidence: JSON.stringify(finding.evidence),
    change: JSON.stringify(finding.change),
    confidence: finding.confidence,
    current_cost_micros: finding.currentCostMicros,
    counterfactual_cost_micros: finding.counterfactualCostMicros,
    monthly_saving_micros: finding.monthlySavingMicros,
    window_start: context.startDate,
    window_end: context.endDate,
    price_micros: context.priceMicros,
    plan_slug: context.planSlug,
    created_by: context.userId,
  };
}

export type Advisor = ReturnType<typeof createAdvisor>;
