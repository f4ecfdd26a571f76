// A team's own negotiated prices, replacing list prices for (provider, model).
import { randomUUID } from 'node:crypto';
import type { Db } from './db.ts';

export interface PriceOverrideInput {
  provider: string;
  model: string;
  inputPerMTokMicros: bigint;
  outputPerMTokMicros: bigint;
  cachedReadPerMTokMicros: bigint | null;
  cacheWrite5mPerMTokMicros: bigint | null;
  cacheWrite1hPerMTokMicros: bigint | null;
}

export async function upsertPriceOverride(db: Db, teamId: string, createdBy: string, input: PriceOverrideInput) {
  const values = {
    input_per_mtok_micros: input.inputPerMTokMicros,
    output_per_mtok_micros: input.outputPerMTokMicros,
    cached_read_per_mtok_micros: input.cachedReadPerMTokMicros,
    cache_write_5m_per_mtok_micros: input.cacheWrite5mPerMTokMicros,
    cache_write_1h_per_mtok_micros: input.cacheWrite1hPerMTokMicros,
  };
  return db
    .insertInto('team_price_overrides')
    .values({ id: randomUUID(), team_id: teamId, provider: input.provider, model: input.model, created_by: createdBy, ...values })
    .onConflict((oc) =>
      oc.columns(['team_id', 'provider', 'model']).doUpdateSet({ ...values, updated_at: new Date(), created_by: createdBy }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function listPriceOverrides(db: Db, teamId: string) {
  return db
    .selectFrom('team_price_overrides')
    .selectAll()
    .where('team_id', '=', teamId)
    .orderBy('provider')
    .orderBy('model')
    .execute();
}

/** Deletes one override of the team; true when it existed. */
export async function deletePriceOverride(db: Db, teamId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('team_price_overrides').where('team_id', '=', teamId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
