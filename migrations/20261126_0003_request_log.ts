// The request log: a team's newest requests first, page by page (keyset on time and
// request id), without scanning the team's older events.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index usage_events_team_recent_idx on usage_events (team_id, occurred_at desc, request_id desc)`.execute(db);
  await sql`create index usage_events_request_id_idx on usage_events (request_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index usage_events_request_id_idx`.execute(db);
  await sql`drop index usage_events_team_recent_idx`.execute(db);
}
