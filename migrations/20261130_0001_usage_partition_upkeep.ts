// When each usage request id was claimed, so the partition upkeep can forget the ids of
// events past retention (usage_request_ids otherwise grows with every request ever made).
// Ids claimed before this change count as claimed now. BRIN: the ids arrive in claim order,
// so a block-range index finds the old ones for almost nothing per insert.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('usage_request_ids').addColumn('claimed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`)).execute();
  await sql`create index usage_request_ids_claimed_idx on usage_request_ids using brin (claimed_at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('usage_request_ids').dropColumn('claimed_at').execute();
}
