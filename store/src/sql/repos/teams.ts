// Teams (the tenant) and their members. Creating a team makes its creator ADMIN.
import type { Team, TeamRole } from '../schema.ts';
import type { Db } from './db.ts';
import { openPlanUnit } from './plan-units.ts';

export async function insertTeam(
  db: Db,
  team: { id: string; name: string; description: string; createdBy: string },
): Promise<Team> {
  const row = await db
    .insertInto('teams')
    .values({ id: team.id, name: team.name, description: team.description, created_by: team.createdBy })
    .returningAll()
    .executeTakeFirstOrThrow();
  await db.insertInto('team_members').values({ team_id: team.id, user_id: team.createdBy, role: 'ADMIN' }).execute();
  await openPlanUnit(db, { teamId: team.id, kind: 'seat', targetId: team.createdBy, at: row.created_at });
  return row;
}

/** Whether a team is a demo team (sample usage, never charged); false for no team. */
export async function isDemoTeam(db: Db, teamId: string): Promise<boolean> {
  const row = await db.selectFrom('teams').select('is_demo').where('id', '=', teamId).executeTakeFirst();
  return row?.is_demo ?? false;
}

export async function findTeamRole(db: Db, teamId: string, userId: string): Promise<TeamRole | undefined> {
  const row = await db
    .selectFrom('team_members')
    .select('role')
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.role;
}

export async function listTeamsOfUser(db: Db, userId: string) {
  return db
    .selectFrom('teams')
    .innerJoin('team_members', 'team_members.team_id', 'teams.id')
    .select(['teams.id', 'teams.name', 'teams.description', 'teams.time_zone', 'teams.created_at', 'team_members.role'])
    .where('team_members.user_id', '=', userId)
    .orderBy('teams.created_at')
    .execute();
}
