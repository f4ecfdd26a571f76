// /api/gpu: GPU infrastructure analytics (Enterprise). A team's settings (idle rules, GPU
// prices, ingest keys, DCGM exporters); the push intake agents call with an ingest key
// (nvidia-smi CSV, at most 1 MiB); and the reads over a range of at most 31 days (the last
// 24 hours by default): fleet utilisation per hour, the heat map, the idle list, power per
// model and the £ wasted per cluster, host, GPU and process.
import { decimalToMicros, MICROS_PER_UNIT, ValidationError } from '@spendgate/core';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { GpuService } from '../../control/gpu.ts';
import { useZod } from '../../zod-provider.ts';
import { answer, GpuExporter, GpuHeatmap, GpuIdleList, GpuIngested, GpuIngestKeyIssued, GpuPower, GpuSettings, GpuUtilization, GpuWaste } from '../answers.ts';
import { ok } from '../reply.ts';
import { text } from '../schemas.ts';
import { signedIn } from '../session.ts';

/** The largest nvidia-smi batch an agent may push: about 4,000 lines of --query-gpu. */
export const GPU_INGEST_BODY_LIMIT_BYTES = 1024 * 1024;
const HOUR_MS = 3_600_000;
const MAX_RANGE_DAYS = 31;
const MAX_PRICE_GBP = 10_000;
const PRICE_RULE = `must be a GBP amount an hour with at most 6 decimals, at most ${MAX_PRICE_GBP}`;

const TeamId = z.uuid('must be a team id');
const TeamQuery = z.object({ teamId: TeamId });
const Cluster = text(80).min(1, 'must name the cluster');
const whole = (min: number, max: number) => {
  const rule = `must be a whole number from ${min} to ${max}`;
  return z.number({ error: rule }).int(rule).min(min, rule).max(max, rule);
};
const PerHour = z.union([z.string().max(32, PRICE_RULE), z.number()], { error: PRICE_RULE }).transform((value, context) => {
  const micros = decimalToMicros(value);
  if (micros === undefined || micros > BigInt(MAX_PRICE_GBP) * MICROS_PER_UNIT) {
    context.addIssue({ code: 'custom', message: PRICE_RULE });
    return z.NEVER;
  }
  return micros;
});

const IdleRulesBody = z.strictObject({ teamId: TeamId, idleBelowPct: whole(1, 100), idleAfterMinutes: whole(1, 1440) });
const PricesBody = z.strictObject({
  teamId: TeamId,
  prices: z.array(z.strictObject({ model: text(200).min(1, 'must name the GPU model'), perHour: PerHour })).max(100, 'must list at most 100 models'),
});
const IngestKeyBody = z.strictObject({ teamId: TeamId, name: text(80).min(1, 'must not be empty') });
const ExporterBody = z.strictObject({
  teamId: TeamId,
  cluster: Cluster,
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048, 'must be at most 2048 characters'),
});
const IdParams = z.object({ id: z.uuid('must be an id') });
const IngestQuery = z.object({
  kind: z.enum(['gpus', 'compute-apps'], { error: 'must be gpus (--query-gpu) or compute-apps (--query-compute-apps)' }),
  cluster: Cluster,
  host: text(200).min(1, 'must name the host'),
});
const RangeQuery = z
  .object({ teamId: TeamId, from: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 time' }).optional(), to: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 time' }).optional() })
  .transform((query) => {
    const to = query.to ? new Date(query.to) : new Date();
    return { teamId: query.teamId, from: query.from ? new Date(query.from) : new Date(to.getTime() - 24 * HOUR_MS), to };
  })
  .refine((range) => range.from < range.to, { path: ['to'], message: 'must be after from' })
  .refine((range) => range.to.getTime() - range.from.getTime() <= MAX_RANGE_DAYS * 24 * HOUR_MS, { path: ['from'], message: `must be at most ${MAX_RANGE_DAYS} days before to` });

export const gpuRoutes =
  (deps: { gpu: GpuService }): FastifyPluginAsync =>
  async (app) => {
    app.addContentTypeParser('text/csv', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    const api = useZod(app);
    const settings = (userId: string, teamId: string) => deps.gpu.settings(userId, teamId);

    api.get('/settings', { schema: { summary: "A team's GPU settings: idle rules, prices, ingest keys, DCGM exporters", querystring: TeamQuery, response: { 200: answer(GpuSettings) } } }, async (request) =>
      ok(await settings(signedIn(request).userId, request.query.teamId)),
    );
    api.put('/settings', { schema: { summary: 'Set the idle rules (team admins)', body: IdleRulesBody, response: { 200: answer(GpuSettings) } } }, async (request) => {
      const { teamId, ...rules } = request.body;
      await deps.gpu.updateIdleRules(signedIn(request).userId, teamId, rules);
      return ok(await settings(signedIn(request).userId, teamId), 'Idle rules saved');
    });
    api.put('/prices', { schema: { summary: "Replace the team's GPU price table (GBP an hour per model; team admins)", body: PricesBody, response: { 200: answer(GpuSettings) } } }, async (request) => {
      const { teamId, prices } = request.body;
      await deps.gpu.replacePrices(
        signedIn(request).userId,
        teamId,
        prices.map((price) => ({ model: price.model, perHourMicros: price.perHour })),
      );
      return ok(await settings(signedIn(request).userId, teamId), 'GPU prices saved');
    });
    api.post('/ingest-keys', { schema: { summary: 'Issue an ingest key for GPU agents (shown once; team admins)', body: IngestKeyBody, response: { 201: answer(GpuIngestKeyIssued) } } }, async (request, reply) =>
      reply.code(201).send(ok(await deps.gpu.issueIngestKey(signedIn(request).userId, request.body.teamId, request.body.name), 'Ingest key issued: copy it now, it is not shown again')),
    );
    api.delete('/ingest-keys/:id', { schema: { summary: 'Revoke an ingest key', params: IdParams, querystring: TeamQuery, response: { 200: answer(z.null()) } } }, async (request) => {
      await deps.gpu.revokeIngestKey(signedIn(request).userId, request.query.teamId, request.params.id);
      return ok(null, 'Ingest key revoked');
    });
    api.post('/exporters', { schema: { summary: "Scrape a DCGM exporter's /metrics for a cluster (team admins)", body: ExporterBody, response: { 201: answer(GpuExporter) } } }, async (request, reply) => {
      const { teamId, ...exporter } = request.body;
      return reply.code(201).send(ok(await deps.gpu.addExporter(signedIn(request).userId, teamId, exporter), 'DCGM exporter added'));
    });
    api.delete('/exporters/:id', { schema: { summary: 'Stop scraping a DCGM exporter', params: IdParams, querystring: TeamQuery, response: { 200: answer(z.null()) } } }, async (request) => {
      await deps.gpu.deleteExporter(signedIn(request).userId, request.query.teamId, request.params.id);
      return ok(null, 'DCGM exporter deleted');
    });

    api.post(
      '/ingest/nvidia-smi',
      {
        config: { public: true },
        bodyLimit: GPU_INGEST_BODY_LIMIT_BYTES,
        schema: {
          summary: 'Push an nvidia-smi CSV batch (text/csv body; Authorization: Bearer sg_gpu_… ingest key)',
          querystring: IngestQuery,
          response: { 200: answer(GpuIngested) },
        },
      },
      async (request) => {
        if (typeof request.body !== 'string') throw new ValidationError('body', 'body: must be nvidia-smi CSV output sent as text/csv');
        const header = request.headers.authorization;
        const key = header?.startsWith('Bearer ') ? header.slice(7).trim() : undefined;
        return ok(await deps.gpu.ingestNvidiaSmi(key, { ...request.query, text: request.body }), 'Batch recorded');
      },
    );

    api.get('/utilization', { schema: { summary: 'Fleet utilisation per UTC hour', querystring: RangeQuery, response: { 200: answer(GpuUtilization) } } }, async (request) =>
      ok(await deps.gpu.utilization(signedIn(request).userId, request.query)),
    );
    api.get('/heatmap', { schema: { summary: 'Each GPU by UTC hour: mean utilisation and idle minutes', querystring: RangeQuery, response: { 200: answer(GpuHeatmap) } } }, async (request) =>
      ok(await deps.gpu.heatmap(signedIn(request).userId, request.query)),
    );
    api.get('/idle', { schema: { summary: 'Idle stretches with the process holding memory and the £ they cost', querystring: RangeQuery, response: { 200: answer(GpuIdleList) } } }, async (request) =>
      ok(await deps.gpu.idle(signedIn(request).userId, request.query)),
    );
    api.get('/power', { schema: { summary: 'Power draw per GPU model', querystring: RangeQuery, response: { 200: answer(GpuPower) } } }, async (request) =>
      ok(await deps.gpu.power(signedIn(request).userId, request.query)),
    );
    api.get('/waste', { schema: { summary: '£ wasted by idle GPUs per cluster, host, GPU and process', querystring: RangeQuery, response: { 200: answer(GpuWaste) } } }, async (request) =>
      ok(await deps.gpu.waste(signedIn(request).userId, request.query)),
    );
  };
