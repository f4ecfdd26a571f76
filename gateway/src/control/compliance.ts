/**
 * Compliance readiness (issue 25). The access review (Enterprise: ISO/SOC2 readiness; team
 * admins): every member's team role and each synthetic group role they hold, when they
 * joined and when they last signed in, as JSON or a CSV file (cells that a spreadsheet would
 * run as a formula are written as text, as the usage export does). And every retention setting of a team in one place
 * (team admins): raw usage events and raw GPU samples (the team's own, at most the
 * deployment's, which is also the default), captured prompts (prompt capture's own setting,
 * changed through its service so its bounds, audit and key caches stay its own) and the
 * audit log (the audit service's own retention, through it). Each change is audited.
 */
import { complianceRefusal, PlanRequiredError, ValidationError } from '@spendgate/core';
import { AUDIT_RETENTION_MAX_DAYS, AUDIT_RETENTION_MIN_DAYS, accessReviewRows, type Config, findTeamRetention, type SqlStore, upsertTeamRetention, writeAudit } from '@spendgate/store';
import { stringify } from 'csv-stringify/sync';
import type { Access } from './access.ts';
import type { AuditService } from './audit.ts';
import type { PlanService } from './plans.ts';
import type { createPromptCaptureService } from './prompt-captures.ts';
import { userText } from './usage-export.ts';

/** The fewest days a team may keep raw usage events: longer than any billing period, so each invoice is built and proved from them. */
export const MIN_USAGE_EVENT_RETENTION_DAYS = 90;
/** The fewest hours a team may keep raw GPU samples: the rollup reclassifies from a window before each new batch. */
export const MIN_GPU_SAMPLE_RETENTION_HOURS = 24;
const MIN_PROMPT_CAPTURE_RETENTION_DAYS = 1;

export const ACCESS_REVIEW_COLUMNS = ['email', 'name', 'scope', 'groupId', 'groupName', 'role', 'joinedAt', 'lastSignedInAt'] as const;

export interface AccessReviewEntry {
  userId: string;
  email: string;
  name: string;
  scope: 'team' | 'group';
  groupId: string | null;
  groupName: string | null;
  role: string;
  joinedAt: Date;
  lastSignedInAt: Date | null;
}

/** What PUT /teams/{teamId}/retention changes: each field absent is kept, null returns it to the default. */
export interface RetentionChanges {
  usageEventDays?: number | null;
  promptCaptureDays?: number | null;
  gpuSampleHours?: number | null;
  auditLogDays?: number | null;
}

export function createComplianceService(deps: {
  sql: SqlStore;
  access: Access;
  plans: Pick<PlanService, 'teamTerms'>;
  promptCaptures: Pick<ReturnType<typeof createPromptCaptureService>, 'settings' | 'updateTeam'>;
  audit: Pick<AuditService, 'retention' | 'setRetention'>;
  config: Pick<Config, 'usageEventRetentionDays' | 'gpuSampleRetentionHours'>;
  now?: () => Date;
}) {
  const { db } = deps.sql;
  const now = deps.now ?? (() => new Date());

  async function retentionOf(userId: string, teamId: string) {
    const [own, capture, audit] = await Promise.all([findTeamRetention(db, teamId), deps.promptCaptures.settings(userId, teamId), deps.audit.retention(userId, teamId)]);
    const usageEventDays = own?.usage_event_days ?? null;
    const gpuSampleHours = own?.gpu_sample_hours ?? null;
    return {
      teamId,
      usageEvents: {
        days: usageEventDays,
        effectiveDays: Math.min(usageEventDays ?? deps.config.usageEventRetentionDays, deps.config.usageEventRetentionDays),
        defaultDays: deps.config.usageEventRetentionDays,
        minDays: Math.min(MIN_USAGE_EVENT_RETENTION_DAYS, deps.config.usageEventRetentionDays),
        maxDays: deps.config.usageEventRetentionDays,
      },
      promptCaptures: {
        days: capture.retentionDays,
        effectiveDays: capture.effectiveRetentionDays,
        defaultDays: capture.defaultRetentionDays,
        minDays: MIN_PROMPT_CAPTURE_RETENTION_DAYS,
        maxDays: capture.maxRetentionDays,
      },
      gpuSamples: {
        hours: gpuSampleHours,
        effectiveHours: Math.min(gpuSampleHours ?? deps.config.gpuSampleRetentionHours, deps.config.gpuSampleRetentionHours),
        defaultHours: deps.config.gpuSampleRetentionHours,
        minHours: Math.min(MIN_GPU_SAMPLE_RETENTION_HOURS, deps.config.gpuSampleRetentionHours),
        maxHours: deps.config.gpuSampleRetentionHours,
      },
      auditLog: {
        days: audit.auditRetentionDays,
        effectiveDays: audit.auditRetentionDays,
        defaultDays: audit.defaultDays,
        minDays: AUDIT_RETENTION_MIN_DAYS,
        maxDays: AUDIT_RETENTION_MAX_DAYS,
      },
    };
  }

  type Retention = Awaited<ReturnType<typeof retentionOf>>;

  /** 400 naming the field unless `value` (when set) is within [min, max] `unit`. */
  function checkBound(field: string, value: number | null | undefined, bounds: { min: number; max: number }, unit: string): void {
    if (value === undefined || value === null) return;
    if (value < bounds.min || value > bounds.max) throw new ValidationError(field, `${field}: must be between ${bounds.min} and ${bounds.max} ${unit}`);
  }

  return {
    /** The team's access review (team admins, Enterprise): one entry per membership, the team's first. */
    async accessReview(userId: string, teamId: string): Promise<{ teamId: string; generatedAt: Date; entries: AccessReviewEntry[] }> {
      await deps.access.team(teamId, userId, 'team.access.review');
      const { terms } = await deps.plans.teamTerms(teamId);
      if (!terms.complianceReadiness) throw new PlanRequiredError(complianceRefusal(terms));
      const { teamRows, groupRows } = await accessReviewRows(db, teamId);
      const entries: AccessReviewEntry[] = [
        ...teamRows.map((row) => ({ ...row, scope: 'team' as const, groupId: null, groupName: null })),
        ...groupRows.map((row) => ({ ...row, scope: 'group' as const })),
      ];
      return { teamId, generatedAt: now(), entries };
    },

    /** The access review as a CSV file: a header row, then one row per entry, times in ISO 8601 UTC. */
    accessReviewCsv(entries: readonly AccessReviewEntry[]): string {
      const rows = entries.map((entry) => [
        userText(entry.email),
        userText(entry.name),
        entry.scope,
        entry.groupId,
        userText(entry.groupName),
        entry.role,
        entry.joinedAt.toISOString(),
        entry.lastSignedInAt?.toISOString() ?? null,
      ]);
      return stringify([[...ACCESS_REVIEW_COLUMNS], ...rows]);
    },

    /** Every retention setting of the team with its bounds (team admins). */
    async retention(userId: string, teamId: string): Promise<Retention> {
      await deps.access.team(teamId, userId, 'team.retention.manage');
      return retentionOf(userId, teamId);
    },

    /** Changes the team's retention settings (team admins); 400 naming a field outside its bounds. */
    async updateRetention(userId: string, teamId: string, changes: RetentionChanges): Promise<Retention> {
      await deps.access.team(teamId, userId, 'team.retention.manage');
      const current = await retentionOf(userId, teamId);
      checkBound('usageEventDays', changes.usageEventDays, { min: current.usageEvents.minDays, max: current.usageEvents.maxDays }, 'days');
      checkBound('promptCaptureDays', changes.promptCaptureDays, { min: current.promptCaptures.minDays, max: current.promptCaptures.maxDays }, 'days');
      checkBound('gpuSampleHours', changes.gpuSampleHours, { min: current.gpuSamples.minHours, max: current.gpuSamples.maxHours }, 'hours');
      checkBound('auditLogDays', changes.auditLogDays, { min: current.auditLog.minDays, max: current.auditLog.maxDays }, 'days');
      if (changes.auditLogDays !== undefined) await deps.audit.setRetention(userId, teamId, changes.auditLogDays ?? current.auditLog.defaultDays);
      if (changes.promptCaptureDays !== undefined && changes.promptCaptureDays !== current.promptCaptures.days) {
        const capture = await deps.promptCaptures.settings(userId, teamId);
        await deps.promptCaptures.updateTeam(userId, teamId, { enabled: capture.enabled, retentionDays: changes.promptCaptureDays, redactionPatterns: capture.redactionPatterns });
      }
      if (changes.usageEventDays !== undefined || changes.gpuSampleHours !== undefined) {
        const values = {
          usage_event_days: changes.usageEventDays === undefined ? current.usageEvents.days : changes.usageEventDays,
          gpu_sample_hours: changes.gpuSampleHours === undefined ? current.gpuSamples.hours : changes.gpuSampleHours,
        };
        await db.transaction().execute(async (trx) => {
          await upsertTeamRetention(trx, teamId, values, userId);
          await writeAudit(trx, {
            teamId,
            actorUserId: userId,
            action: 'team.retention.updated',
            targetType: 'team',
            targetId: teamId,
            before: { usageEventDays: current.usageEvents.days, gpuSampleHours: current.gpuSamples.hours },
            after: { usageEventDays: values.usage_event_days, gpuSampleHours: values.gpu_sample_hours },
          });
        });
      }
      return retentionOf(userId, teamId);
    },
  };
}

export type ComplianceService = ReturnType<typeof createComplianceService>;
