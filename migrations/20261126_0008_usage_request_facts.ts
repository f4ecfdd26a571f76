// Two facts per request for the AI advisor: a SHA-256 of the request body as the caller
// sent it (hex; the body itself is never stored), which finds repeated requests, and the
// output limit the caller asked for (max_tokens, max_completion_tokens or
// max_output_tokens, by surface), which is set against the outputs seen. Both nullable:
// events recorded before, and operations without output, have none. Added on the
// partitioned parent, so every monthly partition (and the default one) gets them.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('usage_events').addColumn('body_sha256', 'text').addColumn('requested_output_tokens', 'integer').execute();
  // Repeats are looked up per team and hash; partial, so events without a hash cost nothing.
  await sql`create index usage_events_team_body_idx on usage_events (team_id, body_sha256) where body_sha256 is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index usage_events_team_body_idx`.execute(db);
  await db.schema.alterTable('usage_events').dropColumn('body_sha256').dropColumn('requested_output_tokens').execute();
}
