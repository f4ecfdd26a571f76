// /api/usage/ai-advisor: the AI advisor's insights on a team's usage (spec §7), generating
// them (each new finding charged at the plan's price once) and applying one's change.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { Advisor } from '../../control/advisor.ts';
import { ModelName } from '../../model-id.ts';
import { useZod } from '../../zod-provider.ts';
import { AdvisorInsight, AdvisorInsights, AdvisorRun, answer } from '../answers.ts';
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
  /** Opt in to written wording: the model to call through one of the team's connections. */
  wording: z.object({ connectionId: id('connection'), model: ModelName }).optional(),
});
const TeamQuery = z.object({ teamId: id('team') });
const InsightParams = z.object({ id: id('insight') });

export const advisorRoutes =
  (services: { advisor: Advisor }): FastifyPluginAsync =>
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
            'Runs the advisor’s detectors on a team’s usage — `data` names groups, keys and a date range (default: the whole team, last 30 days) — and records what they find; a finding new to the team is charged the plan’s price per insight (£0.03, Enterprise £0.02), one found again is not. With `wording` (a connection of the team and a model) the tips are reworded by that model, keeping the detectors’ figures',
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
  };
