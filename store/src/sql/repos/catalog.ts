// Price catalog versions known to the database, so every event's price_version resolves.
import type { Db } from './db.ts';

export async function upsertCatalogVersions(
  db: Db,
  versions: { id: string; effectiveFrom: string; currency: string; modelCount: number }[],
): Promise<void> {
  if (versions.length === 0) return;
  await db
    .insertInto('price_catalog_versions')
    .values(
      versions.map((v) => ({ id: v.id, effective_from: v.effectiveFrom, currency: v.currency, model_count: v.modelCount })),
    )
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}
