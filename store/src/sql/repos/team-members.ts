// A team's members: who they are, their team role, and the changes admins make.
import type { TeamRole } from '../schema.ts';
import type { Db } from './db.ts';
import { closePlanUnits, openPlanUnit } from './plan-units.ts';

export async function findTeam(db: Db, teamId: string) {
  return db.selectFrom('teams').selectAll().where('id', '=', teamId).executeTakeFirst();
}

/** Changes a team's name, description or time zone. */
export async function updateTeam(db: Db, teamId: string, changes: { name?: string; description?: string; timeZone?: string }) {
  return db
    .updateTable('teams')
    .set({
      ...(changes.name !== undefined && { name: changes.name }),
      ...(changes.description !== undefined && { description: changes.description }),
      ...(changes.timeZone !== undefined && { time_zone: changes.timeZone }),
    })
    .where('id', '=', teamId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function listTeamMembers(db: Db, teamId: string) {
  return db
    .selectFrom('team_members as tm')
    .innerJoin('users as u', 'u.id', 'tm.user_id')
    .select(['u.id', 'u.email', 'u.name', 'u.avatar', 'tm.role', 'tm.created_at as joined_at'])
    .where('tm.team_id', '=', teamId)
    .orderBy('tm.created_at')
    .orderBy('u.email')
    .execute();
}

/** Adds a member; false when the user already belongs to the team. */
export async function insertTeamMember(db: Db, member: { teamId: string; userId: string; role: TeamRole }): Promise<boolean> {
  const inserted = await db
    .insertInto('team_members')
    .values({ team_id: member.teamId, user_id: member.userId, role: member.role })
    .onConflict((oc) => oc.columns(['team_id', 'user_id']).doNothing())
    .returning(['user_id', 'created_at'])
    .executeTakeFirst();
  if (inserted) await openPlanUnit(db, { teamId: member.teamId, kind: 'seat', targetId: member.userId, at: inserted.created_at });
  return inserted !== undefined;
}

export async function updateTeamMemberRole(db: Db, teamId: string, userId: string, role: TeamRole): Promise<boolean> {
  const result = await db
    .updateTable('team_members')
    .set({ role })
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Removes a member from the team and from every group of the team. */
export async function deleteTeamMember(db: Db, teamId: string, userId: string): Promise<boolean> {
  await db
    .deleteFrom('synthetic_group_members')
    .where('user_id', '=', userId)
    .where('group_id', 'in', (eb) => eb.selectFrom('synthetic_groups').select('id').where('team_id', '=', teamId))
    .execute();
  const result = await db.deleteFrom('team_members').where('team_id', '=', teamId).where('user_id', '=', userId).executeTakeFirst();
  await closePlanUnits(db, teamId, 'seat', [userId]);
  return result.numDeletedRows > 0n;
}

export async function countTeamMembers(db: Db, teamId: string, role?: TeamRole): Promise<number> {
  let query = db.selectFrom('team_members').select((eb) => eb.fn.countAll<string>().as('n')).where('team_id', '=', teamId);
  if (role) query = query.where('role', '=', role);
  return Number((await query.executeTakeFirstOrThrow()).n);
}
