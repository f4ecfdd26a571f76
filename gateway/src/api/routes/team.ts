// /api/team: teams, the tenant that owns connections, groups and keys.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { useZod } from '../../zod-provider.ts';
import { ok } from '../envelope.ts';
import type { ApiDeps } from '../index.ts';

const TeamBody = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(200),
  description: z.string().trim().max(2000).default(''),
});

export const teamRoutes =
  (deps: Pick<ApiDeps, 'tenancy'>): FastifyPluginAsync =>
  async (app) => {
    useZod(app).post('/', { schema: { body: TeamBody } }, async (request, reply) => {
      const team = await deps.tenancy.createTeam(request.user!.userId, request.body);
      return reply.code(201).send(
        ok({ id: team.id, name: team.name, description: team.description, createdAt: team.created_at }, 'Team created'),
      );
    });
  };
