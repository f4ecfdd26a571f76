// Alerts from the stored spend forecasts: a projected breach (kind 'breach', once per budget
// window) and a spend spike (kind 'spike', once per scope and day) join the threshold and test
// alerts, under the same unique (team_id, dedupe_key).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table alert_events drop constraint alert_events_kind_check`.execute(db);
  await sql`alter table alert_events add constraint alert_events_kind_check check (kind in ('threshold', 'breach', 'spike', 'test'))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from alert_events where kind in ('breach', 'spike')`.execute(db);
  await sql`alter table alert_events drop constraint alert_events_kind_check`.execute(db);
  await sql`alter table alert_events add constraint alert_events_kind_check check (kind in ('threshold', 'test'))`.execute(db);
}
