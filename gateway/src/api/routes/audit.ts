// /api/audit: a team's audit log for its admins (Enterprise: 403 plan_required on another
// plan) — filtered and paged newest first, exported as CSV or JSON, its hash chain verified —
// and the team's audit retention in days (any plan; another settings panel reads and writes it
// here too).
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { ControlPlaneServices } from '../../control/index.ts';
import { useZod } from '../../zod-provider.ts';
import { AuditPage, AuditRetention, AuditVerification, answer } from '../answers.ts';
import { ok } from '../reply.ts';
import { id, text } from '../schemas.ts';
import { signedIn } from '../session.ts';

const RETENTION = 'must be a whole number of days from 30 to 3650';
const Timestamp = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }).transform((value) => new Date(value));
const AuditFilter = z.object({
  teamId: id('team'),
  action: text(100).min(1, 'must not be empty').optional(),
  actorUserId: id('user').optional(),
  targetType: text(100).min(1, 'must not be empty').optional(),
  targetId: text(200).min(1, 'must not be empty').optional(),
  from: Timestamp.optional(),
  to: Timestamp.optional(),
});
const AuditQuery = AuditFilter.extend({
  page: z.coerce.number({ error: 'must be a whole number from 1' }).int('must be a whole number from 1').min(1, 'must be a whole number from 1').default(1),
  pageSize: z.coerce.number({ error: 'must be a whole number from 1 to 200' }).int('must be a whole number from 1 to 200').min(1, 'must be a whole number from 1 to 200').max(200, 'must be a whole number from 1 to 200').default(50),
});
const ExportQuery = AuditFilter.extend({ format: z.enum(['csv', 'json'], { error: 'must be csv or json' }) });
const TeamQuery = z.object({ teamId: id('team') });
const TeamParams = z.object({ teamId: id('team') });
const RetentionBody = z.object({ auditRetentionDays: z.number({ error: RETENTION }).int(RETENTION).min(30, RETENTION).max(3650, RETENTION) });

export const auditRoutes =
  (services: Pick<ControlPlaneServices, 'audit'>): FastifyPluginAsync =>
  async (app) => {
    const api = useZod(app);
    api.get('/', { schema: { summary: 'A team’s audit log, newest first (team admins; Enterprise)', querystring: AuditQuery, response: { 200: answer(AuditPage) } } }, async (request) =>
      ok(await services.audit.list(signedIn(request).userId, request.query)),
    );
    api.get(
      '/export',
      {
        schema: {
          summary: 'The filtered audit log as a CSV or JSON file, newest first, streamed (team admins; Enterprise)',
          querystring: ExportQuery,
          download: {
            contentType: ['text/csv; charset=utf-8', 'application/json; charset=utf-8'],
            description: 'CSV (header row first, cells a spreadsheet reads as text) or a JSON array of the entries (format=), as an attachment',
          },
        },
      },
      async (request, reply) => {
        const { filename, contentType, stream } = await services.audit.export(signedIn(request).userId, request.query);
        return reply.type(contentType).header('content-disposition', `attachment; filename="${filename}"`).header('cache-control', 'no-store').send(stream);
      },
    );
    api.get(
      '/verify',
      { schema: { summary: 'Walks the team’s audit hash chain and reports its first broken link (team admins; Enterprise)', querystring: TeamQuery, response: { 200: answer(AuditVerification) } } },
      async (request) => ok(await services.audit.verify(signedIn(request).userId, request.query.teamId)),
    );
    api.get(
      '/retention/:teamId',
      { schema: { summary: 'How many days the team keeps its audit log (team admins)', params: TeamParams, response: { 200: answer(AuditRetention) } } },
      async (request) => ok(await services.audit.retention(signedIn(request).userId, request.params.teamId)),
    );
    api.put(
      '/retention/:teamId',
      { schema: { summary: 'Set how many days the team keeps its audit log: 30 to 3,650 (team admins)', params: TeamParams, body: RetentionBody, response: { 200: answer(AuditRetention) } } },
      async (request) => ok(await services.audit.setRetention(signedIn(request).userId, request.params.teamId, request.body.auditRetentionDays), 'Audit retention saved'),
    );
  };
