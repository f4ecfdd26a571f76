// Alerts for idle GPUs (kind 'gpu-idle', once per stretch of a GPU holding memory while idle)
// join the other kinds, under the same unique (team_id, dedupe_key).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table alert_events drop constraint alert_events_kind_check`.execute(db);
  await sql`alter table alert_events add constraint alert_events_kind_check check (kind in ('threshold', 'breach', 'spike', 'gpu-idle', 'test'))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from alert_events where kind = 'gpu-idle'`.execute(db);
  await sql`alter table alert_events drop constraint alert_events_kind_check`.execute(db);
  await sql`alter table alert_events add constraint alert_events_kind_check check (kind in ('threshold', 'breach', 'spike', 'test'))`.execute(db);
}
