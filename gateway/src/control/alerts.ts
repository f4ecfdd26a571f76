// Spend alerts, the control plane's side: a team's alert channels (e-mail on every plan;
// Slack, Teams and SMS on Enterprise — core's plan terms), their secrets sealed with the
// team's data key like provider keys, webhook URLs checked by the outbound guard by every
// address they reach; a test message through the worker's delivery; and the alert history
// with every delivery and attempt. Team admins manage channels; members read. A team admin's
// own spend digest (weekly or monthly e-mail of the team's spend; the worker's spend-digest job).
import { randomUUID } from 'node:crypto';
import { type AlertChannel, type DigestFrequency, lastDigestPeriod, NotFoundError, nextDigest, PlanRequiredError, testAlertText, ValidationError } from '@spendgate/core';
import {
  alertChannelSecretScope,
  type AlertChannelSettings,
  deleteAlertChannel,
  type Envelope,
  findAlertChannel,
  findSpendDigest,
  findTeam,
  findTeamDataKey,
  insertTeamDataKeyIfAbsent,
  insertAlertChannel,
  type JobPayloads,
  type JobQueue,
  listAlertChannels,
  listAlertHistory,
  type OutboundGuard,
  recordAlert,
  setSpendDigest,
  type SqlStore,
  writeAudit,
} from '@spendgate/store';
import type { RateLimiter } from '../security/rate-limit.ts';
import type { Access } from './access.ts';
import { DATA_KEY_VERSION } from './connections.ts';
import type { PlanService } from './plans.ts';

export type AlertChannelInput =
  | { kind: 'email'; teamId: string; name: string; addresses: string[] }
  | { kind: 'slack' | 'teams'; teamId: string; name: string; webhookUrl: string }
  | { kind: 'sms'; teamId: string; name: string; accountSid: string; authToken: string; from: string; to: string };

const CHANNEL_NAMES: Record<AlertChannel, string> = { email: 'E-mail', slack: 'Slack', teams: 'Microsoft Teams', sms: 'SMS' };

/** A channel as answers show it: never its secret; a webhook by its host only. */
export function channelView(channel: Awaited<ReturnType<typeof listAlertChannels>>[number]) {
  const settings = channel.settings;
  const target =
    channel.kind === 'email' ? (settings.addresses ?? []).join(', ') : channel.kind === 'sms' ? `${settings.to} from ${settings.from}` : `webhook at ${settings.webhookHost}`;
  return { id: channel.id, teamId: channel.team_id, kind: channel.kind, name: channel.name, target, createdAt: channel.created_at };
}

export function createAlertService(deps: {
  sql: SqlStore;
  access: Access;
  plans: Pick<PlanService, 'teamTerms'>;
  envelope: Envelope;
  outbound: Pick<OutboundGuard, 'check'>;
  queue: Pick<JobQueue<JobPayloads>, 'enqueue'>;
  limiter: RateLimiter;
  now?: () => Date;
}) {
  const { db } = deps.sql;
  const now = deps.now ?? (() => new Date());

  /** The admin's digest as the console shows it: how often, and the next one's days and time. */
  async function digestView(teamId: string, userId: string) {
    const [frequency, team] = await Promise.all([findSpendDigest(db, teamId, userId), findTeam(db, teamId)]);
    const timeZone = team!.time_zone;
    return { teamId, frequency: frequency ?? null, timeZone, next: frequency ? nextDigest(frequency, now(), timeZone) : null };
  }

  async function requirePlanAllows(teamId: string, kind: AlertChannel) {
    const { terms } = await deps.plans.teamTerms(teamId);
    if (!terms.alertChannels.includes(kind)) {
      throw new PlanRequiredError(`${CHANNEL_NAMES[kind]} alerts are part of the Enterprise plan; the ${terms.name} plan sends alerts by e-mail`);
    }
  }

  async function checkedWebhook(url: string): Promise<string> {
    const problem = await deps.outbound.check(url);
    if (problem) throw new ValidationError('webhookUrl', `webhookUrl: ${problem}`);
    if (!url.startsWith('https:') && !url.startsWith('http:')) throw new ValidationError('webhookUrl', 'webhookUrl: must use http or https');
    return url;
  }

  return {
    /** The caller's own spend digest for the team (team admins: it is the whole team's spend). */
    async spendDigest(userId: string, teamId: string) {
      await deps.access.team(teamId, userId, 'team.usage.view');
      return digestView(teamId, userId);
    },

    async setSpendDigest(userId: string, teamId: string, frequency: DigestFrequency | null) {
      await deps.access.team(teamId, userId, 'team.usage.view');
      await setSpendDigest(db, teamId, userId, frequency, now());
      return digestView(teamId, userId);
    },

    /** Mails the caller a sample digest of the last whole period now (their frequency, else weekly); the worker makes it. */
    async previewSpendDigest(userId: string, teamId: string, ip: string) {
      await deps.access.team(teamId, userId, 'team.usage.view');
      await deps.limiter.hit('digest-preview', { account: userId, ip });
      const [view, user] = await Promise.all([digestView(teamId, userId), db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirstOrThrow()]);
      const frequency = view.frequency ?? 'weekly';
      const period = lastDigestPeriod(frequency, now(), view.timeZone);
      await deps.queue.enqueue('spend-digest-preview', { teamId, userId, frequency }, { jobId: `spend-digest-preview-${randomUUID()}` });
      return { to: user.email, frequency, firstDay: period.firstDay, lastDay: period.lastDay };
    },

    async listChannels(userId: string, teamId: string) {
      await deps.access.team(teamId, userId, 'budget.view');
      return (await listAlertChannels(db, teamId)).map(channelView);
    },

    async createChannel(userId: string, input: AlertChannelInput) {
      await deps.access.team(input.teamId, userId, 'budget.manage');
      await requirePlanAllows(input.teamId, input.kind);
      const id = randomUUID();
      let settings: AlertChannelSettings;
      let secret: string | undefined;
      if (input.kind === 'email') settings = { addresses: input.addresses };
      else if (input.kind === 'sms') {
        settings = { accountSid: input.accountSid, from: input.from, to: input.to };
        secret = input.authToken;
      } else {
        secret = await checkedWebhook(input.webhookUrl);
        settings = { webhookHost: new URL(secret).host };
      }
      const dataKey =
        secret === undefined
          ? undefined
          : ((await findTeamDataKey(db, input.teamId)) ??
            (await insertTeamDataKeyIfAbsent(db, { teamId: input.teamId, keyVersion: DATA_KEY_VERSION, wrappedKey: deps.envelope.newDataKey(input.teamId, DATA_KEY_VERSION).wrapped })));
      const channel = await db.transaction().execute(async (trx) => {
        const row = await insertAlertChannel(trx, {
          id,
          team_id: input.teamId,
          kind: input.kind,
          name: input.name,
          settings: JSON.stringify(settings),
          secret_ciphertext:
            secret === undefined || !dataKey ? null : deps.envelope.encryptSecret(dataKey.wrapped_key, alertChannelSecretScope(input.teamId, id, dataKey.key_version), secret),
          secret_key_version: dataKey?.key_version ?? null,
          created_by: userId,
        });
        await writeAudit(trx, {
          teamId: input.teamId,
          actorUserId: userId,
          action: 'alert-channel.created',
          targetType: 'alert-channel',
          targetId: id,
          details: { kind: input.kind, name: input.name },
          // The audit log's redaction keeps a webhook URL's host and a phone number's last digits.
          after: { kind: input.kind, name: input.name, ...settings, ...(input.kind === 'slack' || input.kind === 'teams' ? { webhookUrl: input.webhookUrl } : {}) },
        });
        return row;
      });
      return channelView(channel);
    },

    async deleteChannel(userId: string, teamId: string, id: string) {
      await deps.access.team(teamId, userId, 'budget.manage');
      const deleted = await db.transaction().execute(async (trx) => {
        const channel = await findAlertChannel(trx, teamId, id);
        if (!channel || !(await deleteAlertChannel(trx, teamId, id))) return false;
        await writeAudit(trx, {
          teamId,
          actorUserId: userId,
          action: 'alert-channel.deleted',
          targetType: 'alert-channel',
          targetId: id,
          before: { kind: channel.kind, name: channel.name, ...channel.settings },
        });
        return true;
      });
      if (!deleted) throw new NotFoundError('Alert channel');
    },

    /** Sends a test alert to one channel through the worker, like any alert; its delivery shows in the history. */
    async testChannel(userId: string, teamId: string, id: string) {
      await deps.access.team(teamId, userId, 'budget.manage');
      const channel = await findAlertChannel(db, teamId, id);
      if (!channel) throw new NotFoundError('Alert channel');
      await requirePlanAllows(teamId, channel.kind);
      const text = testAlertText(channel.name);
      const recorded = await recordAlert(
        db,
        { team_id: teamId, kind: 'test', dedupe_key: `test:${randomUUID()}`, budget_id: null, threshold_percent: null, window_label: null, subject: text.subject, message: text.text, details: { channelId: id, requestedBy: userId } },
        [channel],
      );
      const deliveryId = recorded!.deliveryIds[0]!;
      await deps.queue.enqueue('alert-deliver', { deliveryId }, { jobId: `alert-deliver-${deliveryId}` });
      return { alertId: recorded!.alertId, deliveryId };
    },

    async history(userId: string, teamId: string, limit: number) {
      await deps.access.team(teamId, userId, 'budget.view');
      return listAlertHistory(db, teamId, limit);
    },
  };
}

export type AlertService = ReturnType<typeof createAlertService>;
