/**
 * Prompt capture as the control plane manages it: a team's settings (opt-in, retention at
 * most its plan's maximum, its own redaction patterns, checked to run on RE2), each
 * group's opt-in (capture runs only where both are on), and reading one request's capture
 * — only for those who may see that group's usage, each view audited ("viewed prompt").
 * Changes are audited too, and every live key of the team or group is dropped from the
 * gateways' caches so the data plane follows at once.
 */
import { NotFoundError, ValidationError } from '@spendgate/core';
import {
  type Config,
  type Envelope,
  findCaptureSettings,
  findPromptCapture,
  findTeamDataKey,
  findUsageEvent,
  insertTeamDataKeyIfAbsent,
  type KeyCache,
  listLiveKeys,
  type SqlStore,
  upsertGroupCaptureSetting,
  upsertTeamCaptureSettings,
  writeAudit,
} from '@spendgate/store';
import { compileTeamPatterns, MAX_TEAM_PATTERNS, PatternError } from '../capture/capture-redactor.mjs';
import type { CaptureContent } from '../capture/prompt-capture.ts';
import type { Access } from './access.ts';
import { DATA_KEY_VERSION } from './connections.ts';
import type { PlanService } from './plans.ts';

export interface TeamCaptureChanges {
  enabled: boolean;
  /** Days to keep captures; null: the deployment's default. */
  retentionDays: number | null;
  redactionPatterns: string[];
}

/** Throws a 400 naming the first pattern RE2 cannot run safely. */
function checkPatterns(patterns: readonly string[]): void {
  if (patterns.length > MAX_TEAM_PATTERNS) throw new ValidationError('redactionPatterns', `redactionPatterns: at most ${MAX_TEAM_PATTERNS} patterns`);
  try {
    compileTeamPatterns(patterns);
  } catch (error) {
    if (error instanceof PatternError) throw new ValidationError(`redactionPatterns.${error.index}`, `redactionPatterns.${error.index}: ${error.message}`);
    throw error;
  }
}

export function createPromptCaptureService(deps: {
  sql: SqlStore;
  access: Access;
  plans: Pick<PlanService, 'teamTerms'>;
  envelope: Envelope;
  keyCache: Pick<KeyCache<unknown>, 'invalidate'>;
  config: Pick<Config, 'promptCaptureRetentionDays'>;
}) {
  const { db } = deps.sql;

  async function dropCachedKeys(teamId: string, scope: { groupId?: string }): Promise<void> {
    for (const key of await listLiveKeys(db, teamId, scope)) await deps.keyCache.invalidate(key.key_hash);
  }

  /** The team's settings as answered: what is set, what applies and the plan's maximum. */
  async function settingsOf(teamId: string) {
    const [{ team, groups }, { terms }] = await Promise.all([findCaptureSettings(db, teamId), deps.plans.teamTerms(teamId)]);
    const retentionDays = team?.retention_days ?? null;
    return {
      teamId,
      enabled: team?.enabled ?? false,
      retentionDays,
      effectiveRetentionDays: Math.min(retentionDays ?? deps.config.promptCaptureRetentionDays, terms.promptRetentionMaxDays),
      defaultRetentionDays: deps.config.promptCaptureRetentionDays,
      maxRetentionDays: terms.promptRetentionMaxDays,
      redactionPatterns: team?.redaction_patterns ?? [],
      groups: groups.map((group) => ({ groupId: group.group_id, enabled: group.enabled })),
    };
  }

  return {
    /** A team's capture settings and its groups' (team members may read them). */
    async settings(userId: string, teamId: string) {
      await deps.access.team(teamId, userId, 'team.members.view');
      return settingsOf(teamId);
    },

    /** Sets the team's capture (team admins); 400 naming a retention over the plan's maximum or a bad pattern. */
    async updateTeam(userId: string, teamId: string, changes: TeamCaptureChanges) {
      await deps.access.team(teamId, userId, 'team.settings.manage');
      const { terms } = await deps.plans.teamTerms(teamId);
      if (changes.retentionDays !== null && changes.retentionDays > terms.promptRetentionMaxDays) {
        throw new ValidationError('retentionDays', `retentionDays: your plan keeps captures at most ${terms.promptRetentionMaxDays} days`);
      }
      checkPatterns(changes.redactionPatterns);
      const effectiveRetentionDays = Math.min(changes.retentionDays ?? deps.config.promptCaptureRetentionDays, terms.promptRetentionMaxDays);
      await db.transaction().execute(async (trx) => {
        // Captures are sealed with the team's data key: a team without a connection gets one now.
        if (changes.enabled && !(await findTeamDataKey(trx, teamId))) {
          await insertTeamDataKeyIfAbsent(trx, { teamId, keyVersion: DATA_KEY_VERSION, wrappedKey: deps.envelope.newDataKey(teamId, DATA_KEY_VERSION).wrapped });
        }
        const { team: before } = await findCaptureSettings(trx, teamId);
        await upsertTeamCaptureSettings(trx, teamId, { ...changes, effectiveRetentionDays });
        // The patterns are counted, not quoted: a pattern may spell out what it hides.
        await writeAudit(trx, {
          teamId,
          actorUserId: userId,
          action: 'prompt_capture.updated',
          targetType: 'team',
          targetId: teamId,
          before: { enabled: before?.enabled ?? false, retentionDays: before?.retention_days ?? null, redactionPatterns: before?.redaction_patterns.length ?? 0 },
          after: { enabled: changes.enabled, retentionDays: changes.retentionDays, redactionPatterns: changes.redactionPatterns.length },
        });
      });
      await dropCachedKeys(teamId, {});
      return settingsOf(teamId);
    },

    /** Sets a group's capture (its admins and maintainers); it applies only while the team's is on. */
    async updateGroup(userId: string, groupId: string, enabled: boolean) {
      const group = await deps.access.group(groupId, userId, 'group.update');
      await db.transaction().execute(async (trx) => {
        const before = (await findCaptureSettings(trx, group.team_id)).groups.find((setting) => setting.group_id === groupId);
        await upsertGroupCaptureSetting(trx, group.team_id, groupId, enabled);
        await writeAudit(trx, {
          teamId: group.team_id,
          actorUserId: userId,
          action: 'prompt_capture.group_updated',
          targetType: 'synthetic_group',
          targetId: groupId,
          before: { enabled: before?.enabled ?? false },
          after: { enabled },
        });
      });
      await dropCachedKeys(group.team_id, { groupId });
      return settingsOf(group.team_id);
    },

    /**
     * One request's capture, opened: 404 unless the caller may see the request's group.
     * `captured` is false when nothing was kept (capture off, or expired). Each view is audited.
     */
    async view(userId: string, requestId: string) {
      const event = await findUsageEvent(db, requestId);
      if (event === undefined) throw new NotFoundError('Request');
      await deps.access.request(event, userId).catch(() => {
        throw new NotFoundError('Request');
      });
      const [row, dataKey] = await Promise.all([findPromptCapture(db, event.team_id, requestId, new Date()), findTeamDataKey(db, event.team_id)]);
      if (row === undefined || dataKey === undefined) return { requestId, captured: false as const };
      const content = JSON.parse(
        deps.envelope.openCapture(dataKey.wrapped_key, { teamId: event.team_id, requestId, version: row.key_version }, row.sealed),
      ) as CaptureContent;
      await writeAudit(db, { teamId: event.team_id, actorUserId: userId, action: 'prompt_capture.viewed', targetType: 'request', targetId: requestId, details: { summary: 'viewed prompt' } });
      return {
        requestId,
        captured: true as const,
        capturedAt: row.captured_at,
        expiresAt: row.expires_at,
        redactions: content.redactions,
        request: content.request,
        response: content.response,
      };
    },
  };
}

export type PromptCaptureService = ReturnType<typeof createPromptCaptureService>;
