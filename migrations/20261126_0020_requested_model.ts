// The model the caller asked for, beside the model that served (`model`): they differ when
// a key's model override replaced it, the router chose or failed over, or the provider
// named a dated snapshot. The advisor's one-click changes replace the models callers ask
// for. Nullable: events recorded before have none. Added on the partitioned parent, so
// every monthly partition (and the default one) gets it.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('usage_events').addColumn('requested_model', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('usage_events').dropColumn('requested_model').execute();
}
