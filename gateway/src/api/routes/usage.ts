// /api/usage: usage and cost read models for the console.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { ControlPlaneServices } from '../../control/index.ts';
import { REQUEST_LOG_PAGE } from '../../control/request-log.ts';
import { ModelName } from '../../model-id.ts';
import { useZod } from '../../zod-provider.ts';
import { answer, DataFreshness, RequestLogEntry, RequestLogPage, TeamOverview, UsageDistribution, UsageMonthToDate, UsageSeries, UsageTotals } from '../answers.ts';
import { ok } from '../reply.ts';
import { IsoDate, id, text } from '../schemas.ts';
import { signedIn } from '../session.ts';

const GroupUsageQuery = z
  .object({ groupId: id('synthetic group'), startDate: IsoDate, endDate: IsoDate })
  .refine((q) => q.startDate <= q.endDate, { path: ['endDate'], message: 'must not be before startDate' });

const TeamQuery = z.object({ teamId: id('team') });

/** The usage calls' filters: a team (its admins) or a group, narrowed, over the team's calendar days. */
const UsageFilters = z.object({
  teamId: id('team').optional(),
  groupId: id('synthetic group').optional(),
  keyId: id('key').optional(),
  model: ModelName.optional(),
  provider: text(100).min(1, 'must not be empty').optional(),
  startDate: IsoDate.optional(),
  endDate: IsoDate.optional(),
});

/** A usage query: a team or a group named, the range not ending before it starts. */
const scoped = <Schema extends z.ZodType<z.output<typeof UsageFilters>>>(schema: Schema) =>
  schema
    .refine((q) => q.teamId !== undefined || q.groupId !== undefined, { path: ['teamId'], message: 'teamId or groupId is required' })
    .refine((q) => !q.startDate || !q.endDate || q.startDate <= q.endDate, { path: ['endDate'], message: 'must not be before startDate' });

/** The usage calls' common query. */
const UsageQuery = scoped(UsageFilters.extend({ granularity: z.enum(['day', 'hour'], { error: 'must be day or hour' }).optional() }));

/** An export's query: the common filters, the file's format and its rows. */
const ExportQuery = scoped(
  UsageFilters.extend({
    format: z.enum(['csv', 'focus'], { error: 'must be csv or focus' }).default('csv'),
    granularity: z.enum(['request', 'day'], { error: 'must be request or day' }).default('day'),
  }),
);
const DIMENSIONS = ['model', 'provider', 'key', 'group', 'connection'] as const;
const By = z.enum(DIMENSIONS, { error: `must be one of ${DIMENSIONS.join(', ')}` });
const RequestLogQuery = z.intersection(
  UsageQuery,
  z.object({
    status: z.enum(['ok', 'error'], { error: 'must be ok or error' }).optional(),
    cursor: z.string().max(400, 'must be the nextCursor of a previous page').optional(),
    limit: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(REQUEST_LOG_PAGE.max, `must be at most ${REQUEST_LOG_PAGE.max}`).optional(),
  }),
);
const RequestParams = z.object({ requestId: text(200).min(1, 'must not be empty') });
const DistributionQuery = z.intersection(UsageQuery, z.object({ by: By.default('model') }));
const GroupDistributionQuery = z.intersection(UsageQuery, z.object({ groupId: id('synthetic group'), by: By.default('key') }));

export const usageRoutes =
  (services: Pick<ControlPlaneServices, 'usage' | 'usageAnalytics' | 'requestLog' | 'usageExport'>): FastifyPluginAsync =>
  async (app) => {
    const api = useZod(app);
    api.get(
      '/team',
      { schema: { summary: 'A team’s setup so far (connections, groups, live keys, first request) and, for its admins, this month’s usage in total and per day', querystring: TeamQuery, response: { 200: answer(TeamOverview) } } },
      async (request) => ok(await services.usage.teamOverview(signedIn(request).userId, request.query.teamId)),
    );
    api.get(
      '/freshness',
      { schema: { summary: 'How many seconds the usage figures the caller reads may be behind (their read replica’s lag; 0 when read from the primary), and each replica’s lag', response: { 200: answer(DataFreshness) } } },
      async (request) => ok(await services.usage.freshness(signedIn(request).userId)),
    );
    const analytics = services.usageAnalytics;
    api.get(
      '/group',
      { schema: { summary: 'A group’s usage totals over a date range: tokens by category, requests, cost in GBP and USD', querystring: GroupUsageQuery, response: { 200: answer(UsageTotals) } } },
      async (request) => ok(await analytics.summary(signedIn(request).userId, request.query)),
    );
    api.get(
      '/group/specific',
      { schema: { summary: 'Usage totals over a date range for a team (its admins) or a group, narrowed by key, model or provider: tokens by category, requests, errors, cost in GBP and USD, latency p50/p95', querystring: UsageQuery, response: { 200: answer(UsageTotals) } } },
      async (request) => ok(await analytics.summary(signedIn(request).userId, request.query)),
    );
    api.get(
      '/cost/group',
      { schema: { summary: 'Cost, requests and tokens per day (or per hour, up to 7 days) over a date range, every day present', querystring: UsageQuery, response: { 200: answer(UsageSeries) } } },
      async (request) => ok(await analytics.series(signedIn(request).userId, request.query)),
    );
    api.get(
      '/cost/group/specific',
      { schema: { summary: 'This month’s cost day by day, cumulative, beside last month’s (the team’s calendar; last month null beyond the plan’s look-back)', querystring: UsageQuery, response: { 200: answer(UsageMonthToDate) } } },
      async (request) => ok(await analytics.monthToDate(signedIn(request).userId, request.query)),
    );
    api.get(
      '/distribution/group',
      { schema: { summary: 'Usage over a date range split by model, provider, key, group or connection (by=, default model), largest cost first', querystring: DistributionQuery, response: { 200: answer(UsageDistribution) } } },
      async (request) => ok(await analytics.distribution(signedIn(request).userId, request.query)),
    );
    api.get(
      '/distribution/specific',
      { schema: { summary: 'One group’s usage over a date range split by key, model, provider or connection (by=, default key)', querystring: GroupDistributionQuery, response: { 200: answer(UsageDistribution) } } },
      async (request) => ok(await analytics.distribution(signedIn(request).userId, request.query)),
    );
    api.get(
      '/requests',
      { schema: { summary: 'The request log: requests newest first, a page at a time (cursor=nextCursor), filtered like the usage calls and by status=ok|error', querystring: RequestLogQuery, response: { 200: answer(RequestLogPage) } } },
      async (request) => ok(await services.requestLog.page(signedIn(request).userId, request.query)),
    );
    api.get(
      '/requests/:requestId',
      { schema: { summary: 'One request of the log with how it was billed (404 unless you may see its group)', params: RequestParams, response: { 200: answer(RequestLogEntry) } } },
      async (request) => ok(await services.requestLog.detail(signedIn(request).userId, request.params.requestId)),
    );
    api.get(
      '/export',
      {
        schema: {
          summary:
            'A file of the usage over a date range for a team (its admins) or a group, narrowed by key, model or provider: plain CSV or FOCUS 1.2 (format=), one row per request or per day × group × key × provider × model (granularity=), streamed',
          querystring: ExportQuery,
          download: { contentType: 'text/csv; charset=utf-8', description: 'The CSV file (header row first), as an attachment named after the team and the range' },
        },
      },
      async (request, reply) => {
        const { filename, stream } = await services.usageExport.open(signedIn(request).userId, request.query);
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${filename}"`)
          .header('cache-control', 'no-store')
          .send(stream);
      },
    );
  };
