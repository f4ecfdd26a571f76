// /api/usage/ai-advisor: the AI advisor's insights on a team's usage (spec §7), generating
// them (each new finding charged at the plan's price once), applying one's change, and the
// team's wording setting.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { Advisor } from '../../control/advisor.ts';
import type { AdvisorWording } from '../../control/advisor-wording.ts';
import { ModelName } from '../../model-id.ts';
import { useZod } from '../../zod-provider.ts';
import { AdvisorInsight, AdvisorInsights, AdvisorRun, AdvisorWordingSetting, answer } from '../answers.ts';
import { ok } from '../reply.ts';
import { id, IsoDate } from '../schemas.ts';
import { signedIn } from '../session.ts';

/** At most this many groups and keys in one run's data list. */
const MAX_TARGETS = 100;

const Target = z.discriminatedUnion(
  'type',
  [
    z.object({ type: z.literal('group'), id: id('synthetic group') }),
    z.object({ type: z.literal('key'), id: id('key') }),
    z
      .strictObject({ type: z.literal('dateRange'), startDate: IsoDate, endDate: IsoDate })
      .refine((range) => range.startDate <= range.endDate, { path: ['endDate'], message: 'must not be before startDate' }),
  ],
  { error: 'must be a target: {type: "group"|"key", id} or {type: "dateRange", startDate, endDate}' },
);

const GenerateBody = z.object({
  teamId: id('team'),
  data: z
    .array(Target, { error: 'must be a list of groups, keys and at most one date range' })
    .max(MAX_TARGETS, `must name at most ${MAX_TARGETS} targets`)
    .refine((targets) => targets.filter((target) => target.type === 'dateRange').length <= 1, { message: 'must hold at most one dateRange' })
    .default([]),
});
const WordingBody = z
  .strictObject(
    {
      enabled: z.boolean({ error: 'must be true or false' }),
      source: z.enum(['connection', 'operator'], { error: 'must be connection or operator' }),
      connectionId: id('connection').nullable().default(null),
      model: ModelName,
    },
    { error: 'takes enabled, source, connectionId and model' },
  )
  .refine((setting) => setting.source !== 'connection' || setting.connectionId !== null, { path: ['connectionId'], message: 'must name one of your connections when source is connection' });
const TeamParams = z.object({ teamId: id('team') });
const TeamQuery = z.object({ teamId: id('team') });
const InsightParams = z.object({ id: id('insight') });

export const advisorRoutes =
  (services: { advisor: Advisor; advisorWording: AdvisorWording }): FastifyPluginAsync =>
  async (app) => {
    const api = useZod(app);
    api.get(
      '/',
      { schema: { summary: 'A team’s AI advisor insights (team admins), largest estimated monthly saving first, each with its evidence, price and — once applied — realised saving', querystring: TeamQuery, response: { 200: answer(AdvisorInsights) } } },
      async (request) => ok(await services.advisor.list(signedIn(request).userId, request.query.teamId)),
    );
    api.post(
      '/generate',
      {
        schema: {
          summary:
            'Runs the advisor’s detectors on a team’s usage — `data` names groups, keys and a date range (default: the whole team, last 30 days) — and records what they find; a finding new to the team is charged the plan’s price per insight (£0.03, Enterprise £0.02), one found again is not. With the team’s wording on, the tips are reworded by its model, keeping the detectors’ figures',
          body: GenerateBody,
          response: { 200: answer(AdvisorRun) },
        },
      },
      async (request) => ok(await services.advisor.generate(signedIn(request).userId, request.body)),
    );
    api.post(
      '/:id/apply',
      { schema: { summary: 'Applies an insight’s change in one click (an idle key is revoked; a model override or output cap is merged into the key’s settings; a manual change is marked made) and starts measuring its realised saving', params: InsightParams, response: { 200: answer(AdvisorInsight) } } },
      async (request) => ok(await services.advisor.apply(signedIn(request).userId, request.params.id)),
    );
    api.get(
      '/wording/:teamId',
      { schema: { summary: 'A team’s advisor wording setting (team admins): off, or a model that rewords the tips through one of its connections or the operator’s upstream', params: TeamParams, response: { 200: answer(AdvisorWordingSetting) } } },
      async (request) => ok(await services.advisorWording.settings(signedIn(request).userId, request.params.teamId)),
    );
    api.put(
      '/wording/:teamId',
      {
        schema: {
          summary:
            'Turns the advisor’s written wording on or off for a team and chooses its model, through one of the team’s connections or the operator’s upstream (team admins; audited). Each wording call is recorded as the team’s usage (route advisor-wording) and priced like a request through it; the figures in tips stay the detectors’',
          params: TeamParams,
          body: WordingBody,
          response: { 200: answer(AdvisorWordingSetting) },
        },
      },
      async (request) => ok(await services.advisorWording.update(signedIn(request).userId, request.params.teamId, request.body), 'Advisor wording updated'),
    );
  };
