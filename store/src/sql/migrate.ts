// Runs the migrations in migrations/ to the latest, and keeps monthly partitions of
// usage_events created ahead of time (this month, the previous one, the next two).
import { type Kysely, type MigrationProvider, Migrator, sql } from 'kysely';
import { migrations } from '../../../migrations/index.ts';
import type { Database } from './schema.ts';

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

function monthStart(year: number, month: number): Date {
  return new Date(Date.UTC(year, month, 1));
}

/** Creates the usage_events partitions for the months around `now` if missing. */
export async function ensureUsagePartitions(db: Kysely<Database>, now: Date): Promise<void> {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  for (let offset = -1; offset <= 2; offset++) {
    const from = monthStart(year, month + offset);
    const to = monthStart(year, month + offset + 1);
    const name = `usage_events_${from.getUTCFullYear()}_${String(from.getUTCMonth() + 1).padStart(2, '0')}`;
    await sql`
      create table if not exists ${sql.id(name)} partition of usage_events
      for values from (${sql.lit(from.toISOString())}) to (${sql.lit(to.toISOString())})`.execute(db);
  }
}
