// What plan allowances count, kept as spans: every seat (team member), synthetic group
// and optimised key of a team, live from when to when. The repositories that add and
// remove them open and close their spans in the same statement's transaction, so the
// spans outlive the rows and an invoice can charge each extra unit for the time it was live.
import { sql } from 'kysely';
import type { PlanUnitKind } from '../schema.ts';
import type { Db } from './db.ts';

/** Starts a unit's span (nothing when one is already open). */
export async function openPlanUnit(db: Db, unit: { teamId: string; kind: PlanUnitKind; targetId: string; at?: Date }): Promise<void> {
  await db
    .insertInto('plan_units')
    .values({ team_id: unit.teamId, kind: unit.kind, target_id: unit.targetId, started_at: unit.at ?? new Date() })
    .onConflict((oc) => oc.columns(['team_id', 'kind', 'target_id']).where('ended_at', 'is', null).doNothing())
    .execute();
}

/** Ends the open spans of these units. */
export async function closePlanUnits(db: Db, teamId: string, kind: PlanUnitKind, targetIds: readonly string[], at = new Date()): Promise<void> {
  if (targetIds.length === 0) return;
  await db
    .updateTable('plan_units')
    // Never before it started (a clock behind the database's).
    .set({ ended_at: sql`greatest(started_at, ${at})` })
    .where('team_id', '=', teamId)
    .where('kind', '=', kind)
    .where('target_id', 'in', targetIds)
    .where('ended_at', 'is', null)
    .execute();
}

/** The spans of the teams' units that overlap [from, to). */
export async function listPlanUnits(db: Db, teamIds: readonly string[], from: Date, to: Date) {
  if (teamIds.length === 0) return [];
  return db
    .selectFrom('plan_units')
    .select(['team_id', 'kind', 'target_id', 'started_at', 'ended_at'])
    .where('team_id', 'in', teamIds)
    .where('started_at', '<', to)
    .where((eb) => eb.or([eb('ended_at', 'is', null), eb('ended_at', '>', from)]))
    .orderBy('team_id')
    .orderBy('kind')
    .orderBy('started_at')
    .orderBy('target_id')
    .execute();
}
