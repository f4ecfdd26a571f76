// /api/usage: usage and cost read models for the console.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { useZod } from '../../zod-provider.ts';
import { ok } from '../envelope.ts';
import type { ApiDeps } from '../index.ts';

const IsoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date as yyyy-mm-dd')
  .refine((value) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)), 'must be a real calendar date');

const GroupUsageQuery = z
  .object({ groupId: z.uuid('must be a synthetic group id'), startDate: IsoDate, endDate: IsoDate })
  .refine((q) => q.startDate <= q.endDate, { path: ['endDate'], message: 'must not be before startDate' });

export const usageRoutes =
  (deps: Pick<ApiDeps, 'usage'>): FastifyPluginAsync =>
  async (app) => {
    useZod(app).get('/group', { schema: { querystring: GroupUsageQuery } }, async (request) => {
      return ok(await deps.usage.groupUsage(request.user!.userId, request.query));
    });
  };
