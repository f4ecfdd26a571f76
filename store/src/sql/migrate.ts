// Runs the migrations in migrations/ to the latest (usage_events' monthly partitions are
// usage-partitions.ts's).
import { type Kysely, type MigrationProvider, Migrator } from 'kysely';
import { migrations } from '../../../migrations/index.ts';
import type { Database } from './schema.ts';

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
