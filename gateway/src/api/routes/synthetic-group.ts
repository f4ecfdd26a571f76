// /api/synthetic-group: groups and the keys issued for them.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { useZod } from '../../zod-provider.ts';
import { ok } from '../envelope.ts';
import type { ApiDeps } from '../index.ts';

const GroupBody = z.object({
  teamId: z.uuid('must be a team id'),
  name: z.string().trim().min(1, 'must not be empty').max(200),
  description: z.string().trim().max(2000).default(''),
});
const GroupParams = z.object({ groupId: z.uuid('must be a synthetic group id') });
const KeyBody = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(200),
  kind: z.enum(['byok', 'optimised', 'byom']),
  connectionId: z.uuid('must be a connection id').optional(),
});

export const groupRoutes =
  (deps: Pick<ApiDeps, 'tenancy'>): FastifyPluginAsync =>
  async (app) => {
    const api = useZod(app);
    api.post('/', { schema: { body: GroupBody } }, async (request, reply) => {
      const group = await deps.tenancy.createGroup(request.user!.userId, request.body);
      return reply.code(201).send(
        ok(
          { id: group.id, teamId: group.team_id, name: group.name, description: group.description, createdAt: group.created_at },
          'Synthetic group created',
        ),
      );
    });

    api.post('/provider-key/create/:groupId', { schema: { params: GroupParams, body: KeyBody } }, async (request, reply) => {
      const { key, plaintext } = await deps.tenancy.createKey(request.user!.userId, request.params.groupId, request.body);
      return reply.code(201).send(
        ok(
          {
            key: plaintext,
            providerKey: {
              id: key.id,
              groupId: key.group_id,
              connectionId: key.connection_id,
              kind: key.kind,
              name: key.name,
              prefix: key.key_prefix,
              createdAt: key.created_at,
            },
          },
          'Key created. Copy it now: it will not be shown again.',
        ),
      );
    });
  };
