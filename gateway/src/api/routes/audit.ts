// /api/audit: a team's audit log for its admins, filtered and paged (newest first).
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { ControlPlaneServices } from '../../control/index.ts';
import { useZod } from '../../zod-provider.ts';
import { AuditPage, answer } from '../answers.ts';
import { ok } from '../reply.ts';
import { id, text } from '../schemas.ts';
import { signedIn } from '../session.ts';

const Timestamp = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }).transform((value) => new Date(value));
const AuditQuery = z.object({
  teamId: id('team'),
  action: text(100).min(1, 'must not be empty').optional(),
  actorUserId: id('user').optional(),
  targetType: text(100).min(1, 'must not be empty').optional(),
  targetId: text(200).min(1, 'must not be empty').optional(),
  from: Timestamp.optional(),
  to: Timestamp.optional(),
  page: z.coerce.number({ error: 'must be a whole number from 1' }).int('must be a whole number from 1').min(1, 'must be a whole number from 1').default(1),
  pageSize: z.coerce.number({ error: 'must be a whole number from 1 to 200' }).int('must be a whole number from 1 to 200').min(1, 'must be a whole number from 1 to 200').max(200, 'must be a whole number from 1 to 200').default(50),
});

export const auditRoutes =
  (services: Pick<ControlPlaneServices, 'audit'>): FastifyPluginAsync =>
  async (app) => {
    useZod(app).get('/', { schema: { summary: 'A team’s audit log (team admins)', querystring: AuditQuery, response: { 200: answer(AuditPage) } } }, async (request) =>
      ok(await services.audit.list(signedIn(request).userId, request.query)),
    );
  };
