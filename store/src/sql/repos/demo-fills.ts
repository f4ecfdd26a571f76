// Demo teams' sample fills: made with the team, advanced a day at a time by the
// demo-fill job once all of that day's usage events are recorded, so the days and
// requests a fill counts are always in the database.
import type { Kysely } from 'kysely';
import type { Database, DemoFillGroup } from '../schema.ts';
import type { Db } from './db.ts';

export async function insertDemoFill(db: Db, fill: { teamId: string; sampleEnd: Date; groups: DemoFillGroup[]; days: number }): Promise<void> {
  await db
    .insertInto('demo_fills')
    .values({ team_id: fill.teamId, sample_end: fill.sampleEnd, groups: JSON.stringify(fill.groups), days: fill.days })
    .execute();
}

/** A demo team's fill; undefined for a team that is not a demo team. */
export async function findDemoFill(db: Db, teamId: string) {
  const row = await db.selectFrom('demo_fills').selectAll().where('team_id', '=', teamId).executeTakeFirst();
  if (row === undefined) return undefined;
  return { ...row, groups: typeof row.groups === 'string' ? (JSON.parse(row.groups) as DemoFillGroup[]) : row.groups };
}

export type DemoFill = NonNullable<Awaited<ReturnType<typeof findDemoFill>>>;

/** Fills not finished (a restart left them, or they are under way), with the next day each has to record. */
export async function unfinishedDemoFills(db: Kysely<Database>) {
  return db.selectFrom('demo_fills').select(['team_id', 'days_filled']).where('filled_at', 'is', null).orderBy('team_id').execute();
}

/**
 * Counts day `day` (0 = the first), of `requests` events, as recorded, when it is the next
 * one to count; `filledAt` is set with the last day. Answers whether it was the next one
 * (false: another run of the job counted it first).
 */
export async function recordDemoDay(db: Db, fill: { teamId: string; day: number; requests: number; filledAt: Date | null }): Promise<boolean> {
  const result = await db
    .updateTable('demo_fills')
    .set((eb) => ({ days_filled: fill.day + 1, requests: eb('requests', '+', fill.requests), filled_at: fill.filledAt }))
    .where('team_id', '=', fill.teamId)
    .where('days_filled', '=', fill.day)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}
