// /api/pricing: a team's own prices (USD per million tokens, decimal, at most 100,000)
// and whether unpriced models may be used.
import { decimalToMicros, MICROS_PER_UNIT, microsToDecimalString } from '@spendgate/core';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { PricingService } from '../../control/price-overrides.ts';
import { useZod } from '../../zod-provider.ts';
import { answer, PriceOverride, UnpricedPolicy } from '../answers.ts';
import { ok } from '../reply.ts';
import { ModelName } from '../../model-id.ts';
import { text } from '../schemas.ts';
import { signedIn } from '../session.ts';

const MAX_PRICE_PER_MTOK_USD = 100_000;
const PRICE_RULE = `must be a non-negative USD amount with at most 6 decimals, at most ${MAX_PRICE_PER_MTOK_USD}`;
const PricePerMTok = z
  .union([z.string().max(32, PRICE_RULE), z.number()], { error: PRICE_RULE })
  .transform((value, context) => {
    const micros = decimalToMicros(value);
    if (micros === undefined || micros > BigInt(MAX_PRICE_PER_MTOK_USD) * MICROS_PER_UNIT) {
      context.addIssue({ code: 'custom', message: PRICE_RULE });
      return z.NEVER;
    }
    return micros;
  });

const TeamQuery = z.object({ teamId: z.uuid('must be a team id') });
const OverrideBody = z.object({
  teamId: z.uuid('must be a team id'),
  provider: text(100).min(1, 'must not be empty'),
  model: ModelName,
  inputPerMTok: PricePerMTok,
  outputPerMTok: PricePerMTok,
  cachedReadPerMTok: PricePerMTok.optional(),
  cacheWrite5mPerMTok: PricePerMTok.optional(),
  cacheWrite1hPerMTok: PricePerMTok.optional(),
});
const OverrideParams = z.object({ id: z.uuid('must be a price override id') });
const UnpricedBody = z.object({ teamId: z.uuid('must be a team id'), allowUnpricedModels: z.boolean() });

type OverrideRow = Awaited<ReturnType<PricingService['listOverrides']>>[number];

const usd = (micros: bigint | null) => (micros === null ? null : microsToDecimalString(micros));

function overrideView(row: OverrideRow) {
  return {
    id: row.id,
    provider: row.provider,
    model: row.model,
    currency: 'USD',
    inputPerMTok: usd(row.input_per_mtok_micros),
    outputPerMTok: usd(row.output_per_mtok_micros),
    cachedReadPerMTok: usd(row.cached_read_per_mtok_micros),
    cacheWrite5mPerMTok: usd(row.cache_write_5m_per_mtok_micros),
    cacheWrite1hPerMTok: usd(row.cache_write_1h_per_mtok_micros),
    updatedAt: row.updated_at,
  };
}

export const pricingRoutes =
  (deps: { pricing: PricingService }): FastifyPluginAsync =>
  async (app) => {
    const api = useZod(app);
    api.get('/overrides', { schema: { summary: 'Your team’s own model prices', querystring: TeamQuery, response: { 200: answer(z.array(PriceOverride)) } } }, async (request) => {
      const rows = await deps.pricing.listOverrides(signedIn(request).userId, request.query.teamId);
      return ok(rows.map(overrideView));
    });

    api.put('/overrides', { schema: { summary: 'Set the team’s price for a model (USD per million tokens)', body: OverrideBody, response: { 200: answer(PriceOverride) } } }, async (request) => {
      const { teamId, ...price } = request.body;
      const row = await deps.pricing.setOverride(signedIn(request).userId, teamId, {
        provider: price.provider,
        model: price.model,
        inputPerMTokMicros: price.inputPerMTok,
        outputPerMTokMicros: price.outputPerMTok,
        cachedReadPerMTokMicros: price.cachedReadPerMTok ?? null,
        cacheWrite5mPerMTokMicros: price.cacheWrite5mPerMTok ?? null,
        cacheWrite1hPerMTokMicros: price.cacheWrite1hPerMTok ?? null,
      });
      return ok(overrideView(row), 'Price override saved');
    });

    api.delete('/overrides/:id', { schema: { summary: 'Delete a team price', params: OverrideParams, querystring: TeamQuery, response: { 200: answer(z.null()) } } }, async (request) => {
      await deps.pricing.deleteOverride(signedIn(request).userId, request.query.teamId, request.params.id);
      return ok(null, 'Price override deleted');
    });

    api.put('/unpriced-models', { schema: { summary: 'Whether the team may use models without a price', body: UnpricedBody, response: { 200: answer(UnpricedPolicy) } } }, async (request) => {
      await deps.pricing.setUnpricedPolicy(signedIn(request).userId, request.body.teamId, request.body.allowUnpricedModels);
      return ok({ allowUnpricedModels: request.body.allowUnpricedModels }, 'Unpriced model policy saved');
    });
  };
