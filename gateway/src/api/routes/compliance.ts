// /api/teams/{teamId}: compliance readiness — the access review (team admins, Enterprise),
// as JSON or a CSV file, and every retention setting of the team in one place (team admins).
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { z } from 'zod';
import type { ControlPlaneServices } from '../../control/index.ts';
import { useZod } from '../../zod-provider.ts';
import { AccessReview, answer, TeamRetention } from '../answers.ts';
import { ok } from '../reply.ts';
import { id } from '../schemas.ts';
import { signedIn } from '../session.ts';

const TeamParams = z.object({ teamId: id('team') });
const AccessReviewQuery = z.object({ format: z.enum(['csv', 'json'], { error: 'must be csv or json' }).default('json') });
const setting = (unit: string) => z.number({ error: `must be a whole number of ${unit} or null (the default)` }).int(`must be a whole number of ${unit}`).nullable().optional();
const RetentionBody = z
  .strictObject(
    { usageEventDays: setting('days'), promptCaptureDays: setting('days'), gpuSampleHours: setting('hours'), auditLogDays: setting('days') },
    { error: 'must be an object of usageEventDays, promptCaptureDays, gpuSampleHours, auditLogDays' },
  )
  .refine((body) => Object.values(body).some((value) => value !== undefined), { message: 'must change usageEventDays, promptCaptureDays, gpuSampleHours or auditLogDays' });

export const complianceRoutes =
  (services: Pick<ControlPlaneServices, 'compliance'>): FastifyPluginAsync =>
  async (app) => {
    const api = useZod(app);
    const { compliance } = services;
    api.get(
      '/:teamId/access-review',
      {
        schema: {
          summary: 'Who holds which role in the team and each synthetic group, when they joined and last signed in (team admins; Enterprise): JSON, or a CSV file with format=csv',
          params: TeamParams,
          querystring: AccessReviewQuery,
          response: { 200: answer(AccessReview) },
          download: { contentType: 'text/csv; charset=utf-8', description: 'With format=csv: the CSV file (header row first), as an attachment' },
        },
      },
      async (request, reply) => {
        const review = await compliance.accessReview(signedIn(request).userId, request.params.teamId);
        if (request.query.format === 'json') return ok(review);
        // The file is text, not the JSON answer the typed reply expects.
        return (reply as FastifyReply)
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="access-review-${review.teamId}-${review.generatedAt.toISOString().slice(0, 10)}.csv"`)
          .header('cache-control', 'no-store')
          .send(compliance.accessReviewCsv(review.entries));
      },
    );
    api.get(
      '/:teamId/retention',
      { schema: { summary: 'Every retention setting of the team with its default and bounds (team admins)', params: TeamParams, response: { 200: answer(TeamRetention) } } },
      async (request) => ok(await compliance.retention(signedIn(request).userId, request.params.teamId)),
    );
    api.put(
      '/:teamId/retention',
      {
        schema: {
          summary: 'Change retention settings (team admins): a field left out is kept, null returns it to the default; 400 naming a field outside its bounds',
          params: TeamParams,
          body: RetentionBody,
          response: { 200: answer(TeamRetention) },
        },
      },
      async (request) => ok(await compliance.updateRetention(signedIn(request).userId, request.params.teamId, request.body), 'Retention saved'),
    );
  };
