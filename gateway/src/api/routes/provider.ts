// /api/provider: provider connections. The API key is write-only: answers show only
// its last four characters.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { useZod } from '../../zod-provider.ts';
import { ok } from '../envelope.ts';
import type { ApiDeps } from '../index.ts';

const ConnectionBody = z.object({
  teamId: z.uuid('must be a team id'),
  provider: z.string().trim().min(1, 'must not be empty'),
  name: z.string().trim().min(1, 'must not be empty').max(200),
  apiKey: z.string().trim().min(1, 'must not be empty').max(4096),
  baseUrl: z.url('must be a valid URL').optional(),
});

export const providerRoutes =
  (deps: Pick<ApiDeps, 'tenancy'>): FastifyPluginAsync =>
  async (app) => {
    useZod(app).post('/connections', { schema: { body: ConnectionBody } }, async (request, reply) => {
      const connection = await deps.tenancy.createConnection(request.user!.userId, request.body);
      const newConnection = {
        id: connection.id,
        teamId: connection.team_id,
        provider: connection.provider,
        name: connection.name,
        baseUrl: connection.base_url,
        status: connection.status,
        apiKeyTail: `••••${connection.secret_tail}`,
        createdAt: connection.created_at,
      };
      return reply.code(201).send(ok({ newConnection }, 'Connection created'));
    });
  };
