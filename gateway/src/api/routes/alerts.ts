// /api/alerts: a team's alert channels (list, add, send a test, delete) and its alert
// history with every delivery and attempt. E-mail on every plan; Slack, Teams, SMS on Enterprise.
// A team admin's own spend digest (weekly or monthly e-mail of the team's spend).
import { DIGEST_FREQUENCIES, isE164 } from '@spendgate/core';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { AlertService } from '../../control/alerts.ts';
import { useZod } from '../../zod-provider.ts';
import { AlertChannel, AlertEvent, AlertTestStarted, answer, SpendDigest, SpendDigestPreview } from '../answers.ts';
import { ok } from '../reply.ts';
import { text } from '../schemas.ts';
import { signedIn } from '../session.ts';

const Name = text(80).min(1, 'must not be empty');
const TeamId = z.uuid('must be a team id');
const Phone = z.string().refine(isE164, 'must be a phone number in E.164 form, e.g. +447700900123');
const WebhookUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048, 'must be at most 2048 characters');

const ChannelBody = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({ kind: z.literal('email'), teamId: TeamId, name: Name, addresses: z.array(z.email('must be e-mail addresses')).min(1, 'must list at least one address').max(10, 'must list at most 10 addresses') }),
    z.strictObject({ kind: z.literal('slack'), teamId: TeamId, name: Name, webhookUrl: WebhookUrl }),
    z.strictObject({ kind: z.literal('teams'), teamId: TeamId, name: Name, webhookUrl: WebhookUrl }),
    z.strictObject({
      kind: z.literal('sms'),
      teamId: TeamId,
      name: Name,
      accountSid: z.string().regex(/^AC[0-9a-zA-Z]{32}$/, 'must be a Twilio account SID (AC and 32 characters)'),
      authToken: z.string().min(16, 'must be the Twilio auth token').max(128, 'must be the Twilio auth token'),
      from: Phone,
      to: Phone,
    }),
  ],
  { error: 'must be one of email, slack, teams, sms' },
);
const TeamQuery = z.object({ teamId: TeamId });
const HistoryQuery = z.object({ teamId: TeamId, limit: z.coerce.number({ error: 'must be a whole number from 1 to 200' }).int('must be a whole number from 1 to 200').min(1, 'must be a whole number from 1 to 200').max(200, 'must be a whole number from 1 to 200').default(50) });
const SpendDigestBody = z.strictObject({ teamId: TeamId, frequency: z.enum(DIGEST_FREQUENCIES, { error: 'must be weekly, monthly or null' }).nullable() });
const ChannelParams = z.object({ id: z.uuid('must be an alert channel id') });

type HistoryRow = Awaited<ReturnType<AlertService['history']>>[number];

const alertView = (alert: HistoryRow) => ({
  id: alert.id,
  teamId: alert.team_id,
  kind: alert.kind,
  budgetId: alert.budget_id,
  thresholdPercent: alert.threshold_percent,
  window: alert.window_label,
  subject: alert.subject,
  message: alert.message,
  createdAt: alert.created_at,
  deliveries: alert.deliveries.map((delivery) => ({
    id: delivery.id,
    channelId: delivery.channel_id,
    channelKind: delivery.channel_kind,
    channelName: delivery.channel_name,
    idempotencyKey: delivery.idempotency_key,
    status: delivery.status,
    attempts: delivery.attempts.map((attempt) => ({ attempt: attempt.attempt, at: attempt.at, outcome: attempt.outcome, statusCode: attempt.status_code, error: attempt.error })),
    lastError: delivery.last_error,
    sentAt: delivery.sent_at,
  })),
});

export const alertRoutes =
  (deps: { alerts: AlertService }): FastifyPluginAsync =>
  async (app) => {
    const api = useZod(app);
    api.get('/channels', { schema: { summary: "A team's alert channels", querystring: TeamQuery, response: { 200: answer(z.array(AlertChannel)) } } }, async (request) =>
      ok(await deps.alerts.listChannels(signedIn(request).userId, request.query.teamId)),
    );
    api.post('/channels', { schema: { summary: 'Add an alert channel (team admins; Slack, Teams and SMS on Enterprise)', body: ChannelBody, response: { 201: answer(AlertChannel) } } }, async (request, reply) =>
      reply.code(201).send(ok(await deps.alerts.createChannel(signedIn(request).userId, request.body), 'Alert channel added')),
    );
    api.post(
      '/channels/:id/test',
      { schema: { summary: 'Send a test alert to a channel (delivered by the worker; see the history)', params: ChannelParams, querystring: TeamQuery, response: { 202: answer(AlertTestStarted) } } },
      async (request, reply) => reply.code(202).send(ok(await deps.alerts.testChannel(signedIn(request).userId, request.query.teamId, request.params.id), 'Test alert queued')),
    );
    api.delete('/channels/:id', { schema: { summary: 'Delete an alert channel', params: ChannelParams, querystring: TeamQuery, response: { 200: answer(z.null()) } } }, async (request) => {
      await deps.alerts.deleteChannel(signedIn(request).userId, request.query.teamId, request.params.id);
      return ok(null, 'Alert channel deleted');
    });
    api.get('/spend-digest', { schema: { summary: 'Your weekly or monthly e-mail of the team’s spend (team admins)', querystring: TeamQuery, response: { 200: answer(SpendDigest) } } }, async (request) =>
      ok(await deps.alerts.spendDigest(signedIn(request).userId, request.query.teamId)),
    );
    api.put('/spend-digest', { schema: { summary: 'Choose your spend digest: weekly, monthly or null for none (team admins)', body: SpendDigestBody, response: { 200: answer(SpendDigest) } } }, async (request) =>
      ok(await deps.alerts.setSpendDigest(signedIn(request).userId, request.body.teamId, request.body.frequency), request.body.frequency ? 'Spend digest saved' : 'Spend digest stopped'),
    );
    api.post(
      '/spend-digest/preview',
      { schema: { summary: 'Mail yourself a sample digest of the last whole period now (team admins; 3 an hour)', body: z.strictObject({ teamId: TeamId }), response: { 202: answer(SpendDigestPreview) } } },
      async (request, reply) => reply.code(202).send(ok(await deps.alerts.previewSpendDigest(signedIn(request).userId, request.body.teamId, request.ip), 'A sample digest is on its way')),
    );
    api.get('/', { schema: { summary: "A team's alerts, newest first, with each delivery and attempt", querystring: HistoryQuery, response: { 200: answer(z.array(AlertEvent)) } } }, async (request) =>
      ok((await deps.alerts.history(signedIn(request).userId, request.query.teamId, request.query.limit)).map(alertView)),
    );
  };
