/**
 * A team's own prices (PUT /api/pricing/overrides) as a one-version price catalog, and which
 * catalog prices a call: the team's when it prices the model, else the list prices. The data
 * plane's metering and the control plane's own calls (the advisor's wording) price alike.
 */
import { findPrice, type ModelPrice, type PriceCatalog } from '@spendgate/core';
import { listPriceOverrides, type SqlStore } from '@spendgate/store';

/** Version id stored on events priced with a team's own prices. */
export const TEAM_OVERRIDE_PRICE_VERSION = 'team-override';

/** The team's own prices; undefined when it has none. */
export async function loadTeamPrices(sql: Pick<SqlStore, 'db'>, teamId: string): Promise<PriceCatalog | undefined> {
  const rows = await listPriceOverrides(sql.db, teamId);
  if (rows.length === 0) return undefined;
  const prices: Record<string, Record<string, ModelPrice>> = {};
  for (const row of rows) {
    const price: ModelPrice = { inputPerMTok: row.input_per_mtok_micros, outputPerMTok: row.output_per_mtok_micros };
    if (row.cached_read_per_mtok_micros !== null) price.cachedReadPerMTok = row.cached_read_per_mtok_micros;
    if (row.cache_write_5m_per_mtok_micros !== null) price.cacheWrite5mPerMTok = row.cache_write_5m_per_mtok_micros;
    if (row.cache_write_1h_per_mtok_micros !== null) price.cacheWrite1hPerMTok = row.cache_write_1h_per_mtok_micros;
    prices[row.provider] = { ...prices[row.provider], [row.model]: price };
  }
  return { versions: [{ id: TEAM_OVERRIDE_PRICE_VERSION, effectiveFrom: '1970-01-01T00:00:00Z', currency: 'USD', prices }] };
}

/** The catalog that prices `model`: the team's own when it lists it, else the list. */
export function catalogFor(teamPrices: PriceCatalog | undefined, list: PriceCatalog, provider: string, model: string, at: Date): PriceCatalog {
  return teamPrices && findPrice(teamPrices, provider, model, at) ? teamPrices : list;
}
