// Prompt capture on /api: a team's capture settings, a group's opt-in, and one request's
// captured prompt and answer (redacted; each view audited).
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { ControlPlaneServices } from '../../control/index.ts';
import { useZod } from '../../zod-provider.ts';
import { answer, PromptCaptureSettings, PromptCaptureView } from '../answers.ts';
import { ok } from '../reply.ts';
import { id, text } from '../schemas.ts';
import { signedIn } from '../session.ts';

const MAX_PLAN_RETENTION_DAYS = 365;

const TeamParams = z.object({ teamId: id('team') });
const GroupParams = z.object({ groupId: id('synthetic group') });
const RequestParams = z.object({ requestId: text(200).min(1, 'must not be empty') });
const TeamCaptureBody = z.strictObject(
  {
    enabled: z.boolean({ error: 'must be true or false' }),
    retentionDays: z
      .number({ error: 'must be a number of days or null' })
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(MAX_PLAN_RETENTION_DAYS, `must be at most ${MAX_PLAN_RETENTION_DAYS}`)
      .nullable()
      .default(null),
    // Patterns are checked by the service (RE2 must run them); here only their shape.
    redactionPatterns: z.array(z.string({ error: 'must be a pattern' }), { error: 'must be a list of patterns' }).default([]),
  },
  { error: 'takes enabled, retentionDays and redactionPatterns' },
);
const GroupCaptureBody = z.strictObject({ enabled: z.boolean({ error: 'must be true or false' }) }, { error: 'takes enabled' });

export const promptCaptureRoutes =
  (services: Pick<ControlPlaneServices, 'promptCaptures'>): FastifyPluginAsync =>
  async (app) => {
    const api = useZod(app);
    const captures = services.promptCaptures;
    api.get(
      '/usage/requests/:requestId/capture',
      { schema: { summary: 'One request’s captured prompt and answer, redacted (404 unless you may see its group’s usage; every view is audited)', params: RequestParams, response: { 200: answer(PromptCaptureView) } } },
      async (request) => ok(await captures.view(signedIn(request).userId, request.params.requestId)),
    );
    api.get(
      '/capture/teams/:teamId',
      { schema: { summary: 'A team’s prompt capture settings and its groups’ opt-ins', params: TeamParams, response: { 200: answer(PromptCaptureSettings) } } },
      async (request) => ok(await captures.settings(signedIn(request).userId, request.params.teamId)),
    );
    api.put(
      '/capture/teams/:teamId',
      {
        schema: {
          summary: 'Turn prompt capture on or off for a team, set its retention (at most the plan’s maximum) and its own redaction patterns (RE2, at most 20 of 200 characters) — team admins',
          params: TeamParams,
          body: TeamCaptureBody,
          response: { 200: answer(PromptCaptureSettings) },
        },
      },
      async (request) => ok(await captures.updateTeam(signedIn(request).userId, request.params.teamId, request.body), 'Prompt capture updated'),
    );
    api.put(
      '/capture/groups/:groupId',
      { schema: { summary: 'Turn prompt capture on or off for a group (it captures only while its team does) — group admins and maintainers', params: GroupParams, body: GroupCaptureBody, response: { 200: answer(PromptCaptureSettings) } } },
      async (request) => ok(await captures.updateGroup(signedIn(request).userId, request.params.groupId, request.body.enabled), 'Prompt capture updated'),
    );
  };
