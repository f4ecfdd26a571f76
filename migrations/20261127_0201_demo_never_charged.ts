// Demo teams are never charged: what their usage events, rollup cells and AI advisor tips
// were charged before is set to nothing (the events keep their cost and budget spend).
// Not undone: what was charged is not kept.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const demoTeams = sql`(select id from teams where is_demo)`;
  await sql`update usage_events set billed_micros = 0, billing_rule = 'demo-never-billed' where team_id in ${demoTeams}`.execute(db);
  await sql`update usage_rollups set billed_micros = 0 where team_id in ${demoTeams}`.execute(db);
  await sql`update advisor_insights set price_micros = 0 where team_id in ${demoTeams}`.execute(db);
}

