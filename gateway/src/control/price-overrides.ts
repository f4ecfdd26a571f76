// A team's pricing settings: its own negotiated prices per (provider, model), which
// replace list prices for its requests, and whether unpriced models may be used.
// Changes reach the gateways as their principal cache entries expire (≤ 60 s).

import { NotFoundError, ValidationError } from '@spendgate/core';
import {
  deletePriceOverride,
  listPriceOverrides,
  type PriceOverrideInput,
  type SqlStore,
  upsertPriceOverride,
  writeAudit,
} from '@spendgate/store';
import { findProvider } from '../providers/registry.ts';
import type { Access } from './access.ts';

type OverrideRow = Awaited<ReturnType<typeof listPriceOverrides>>[number];

/** An override's prices as the audit log keeps them, in micro-units of US dollars per million tokens. */
const auditedPrices = (row: OverrideRow) => ({
  currency: 'USD',
  inputPerMTokMicros: row.input_per_mtok_micros,
  outputPerMTokMicros: row.output_per_mtok_micros,
  cachedReadPerMTokMicros: row.cached_read_per_mtok_micros,
  cacheWrite5mPerMTokMicros: row.cache_write_5m_per_mtok_micros,
  cacheWrite1hPerMTokMicros: row.cache_write_1h_per_mtok_micros,
});

export function createPricingService(deps: { sql: SqlStore; access: Access }) {
  const { db } = deps.sql;
  const authorize = (action: 'pricing.view' | 'pricing.manage', teamId: string, userId: string) =>
    deps.access.team(teamId, userId, action);

  return {
    async listOverrides(userId: string, teamId: string) {
      await authorize('pricing.view', teamId, userId);
      return listPriceOverrides(db, teamId);
    },

    async setOverride(userId: string, teamId: string, input: PriceOverrideInput) {
      await authorize('pricing.manage', teamId, userId);
      const adapter = findProvider(input.provider);
      if (!adapter) throw new ValidationError('provider', `provider: unknown provider "${input.provider}"`);
      return db.transaction().execute(async (trx) => {
        const before = (await listPriceOverrides(trx, teamId)).find((row) => row.provider === adapter.catalogProvider && row.model === input.model);
        const row = await upsertPriceOverride(trx, teamId, userId, { ...input, provider: adapter.catalogProvider });
        await writeAudit(trx, {
          teamId,
          actorUserId: userId,
          action: 'pricing.override.set',
          targetType: 'price_override',
          targetId: row.id,
          details: { provider: row.provider, model: row.model },
          ...(before && { before: auditedPrices(before) }),
          after: auditedPrices(row),
        });
        return row;
      });
    },

    async deleteOverride(userId: string, teamId: string, id: string) {
      await authorize('pricing.manage', teamId, userId);
      await db.transaction().execute(async (trx) => {
        const before = (await listPriceOverrides(trx, teamId)).find((row) => row.id === id);
        if (!before || !(await deletePriceOverride(trx, teamId, id))) throw new NotFoundError('Price override');
        await writeAudit(trx, {
          teamId,
          actorUserId: userId,
          action: 'pricing.override.deleted',
          targetType: 'price_override',
          targetId: id,
          details: { provider: before.provider, model: before.model },
          before: auditedPrices(before),
        });
      });
    },

    async setUnpricedPolicy(userId: string, teamId: string, allowUnpricedModels: boolean) {
      await authorize('pricing.manage', teamId, userId);
      await db.transaction().execute(async (trx) => {
        const before = await trx.selectFrom('teams').select('allow_unpriced_models').where('id', '=', teamId).executeTakeFirstOrThrow();
        await trx.updateTable('teams').set({ allow_unpriced_models: allowUnpricedModels }).where('id', '=', teamId).execute();
        await writeAudit(trx, {
          teamId,
          actorUserId: userId,
          action: 'pricing.unpriced_policy.set',
          targetType: 'team',
          targetId: teamId,
          details: { allowUnpricedModels },
          before: { allowUnpricedModels: before.allow_unpriced_models },
          after: { allowUnpricedModels },
        });
      });
    },
  };
}

export type PricingService = ReturnType<typeof createPricingService>;
