// /api/usage: usage and cost read models for the console.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { ControlPlaneServices } from '../../control/index.ts';
import { useZod } from '../../zod-provider.ts';
import { answer, TeamOverview, UsageTotals } from '../answers.ts';
import { ok } from '../reply.ts';
import { IsoDate, id } from '../schemas.ts';
import { signedIn } from '../session.ts';

const GroupUsageQuery = z
  .object({ groupId: id('synthetic group'), startDate: IsoDate, endDate: IsoDate })
  .refine((q) => q.startDate <= q.endDate, { path: ['endDate'], message: 'must not be before startDate' });

const TeamQuery = z.object({ teamId: id('team') });

export const usageRoutes =
  (services: Pick<ControlPlaneServices, 'usage'>): FastifyPluginAsync =>
  async (app) => {
    const api = useZod(app);
    api.get(
      '/team',
      { schema: { summary: 'A team’s setup so far (connections, groups, live keys, first request) and this month’s usage, in total and per day', querystring: TeamQuery, response: { 200: answer(TeamOverview) } } },
      async (request) => ok(await services.usage.teamOverview(signedIn(request).userId, request.query.teamId)),
    );
    api.get('/group', { schema: { summary: 'A group’s tokens and cost over a date range', querystring: GroupUsageQuery, response: { 200: answer(UsageTotals) } } }, async (request) =>
      ok(await services.usage.groupUsage(signedIn(request).userId, request.query)),
    );
  };
