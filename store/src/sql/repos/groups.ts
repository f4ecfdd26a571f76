// Synthetic groups: usage grouped by team, product or customer — created, listed as
// their admins see them, edited, deleted, with their members. Every query names the team.
import type { GroupRole, SyntheticGroup } from '../schema.ts';
import type { Db } from './db.ts';
import { closePlanUnits, openPlanUnit } from './plan-units.ts';

export async function insertGroup(
  db: Db,
  group: { id: string; teamId: string; name: string; description: string; createdBy: string },
): Promise<SyntheticGroup> {
  const row = await db
    .insertInto('synthetic_groups')
    .values({
      id: group.id,
      team_id: group.teamId,
      name: group.name,
      description: group.description,
      created_by: group.createdBy,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await db
    .insertInto('synthetic_group_members')
    .values({ group_id: group.id, user_id: group.createdBy, role: 'ADMIN' })
    .execute();
  await openPlanUnit(db, { teamId: group.teamId, kind: 'group', targetId: group.id, at: row.created_at });
  return row;
}

/** A group by id, only if it belongs to one of the user's teams, with the user's roles. */
export async function findGroupForUser(db: Db, groupId: string, userId: string) {
  return db
    .selectFrom('synthetic_groups as g')
    .innerJoin('team_members as tm', (join) => join.onRef('tm.team_id', '=', 'g.team_id').on('tm.user_id', '=', userId))
    .leftJoin('synthetic_group_members as gm', (join) =>
      join.onRef('gm.group_id', '=', 'g.id').on('gm.user_id', '=', userId),
    )
    .select(['g.id', 'g.team_id', 'g.name', 'g.description', 'g.created_at', 'tm.role as teamRole', 'gm.role as groupRole'])
    .where('g.id', '=', groupId)
    .executeTakeFirst();
}

/** The groups a user may see: every group of teams they administer, else those they belong to. */
export async function listGroupsForUser(db: Db, userId: string, filter: { teamId?: string; search?: string }) {
  let query = db
    .selectFrom('synthetic_groups as g')
    .innerJoin('team_members as tm', (join) => join.onRef('tm.team_id', '=', 'g.team_id').on('tm.user_id', '=', userId))
    .leftJoin('synthetic_group_members as gm', (join) => join.onRef('gm.group_id', '=', 'g.id').on('gm.user_id', '=', userId))
    .select(['g.id', 'g.team_id', 'g.name', 'g.description', 'g.created_at', 'tm.role as teamRole', 'gm.role as groupRole'])
    .where((eb) => eb.or([eb('tm.role', '=', 'ADMIN'), eb('gm.role', 'is not', null)]));
  if (filter.teamId) query = query.where('g.team_id', '=', filter.teamId);
  if (filter.search) query = query.where('g.name', 'ilike', `%${filter.search.replace(/[\\%_]/g, '\\$&')}%`);
  return query.orderBy('g.created_at').execute();
}

export async function updateGroup(db: Db, teamId: string, groupId: string, changes: { name?: string; description?: string }) {
  return db
    .updateTable('synthetic_groups')
    .set(changes)
    .where('team_id', '=', teamId)
    .where('id', '=', groupId)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes a group and with it its keys (their plan spans end). */
export async function deleteGroup(db: Db, teamId: string, groupId: string): Promise<boolean> {
  const keys = await db.selectFrom('issued_keys').select('id').where('team_id', '=', teamId).where('group_id', '=', groupId).execute();
  await closePlanUnits(db, teamId, 'key', keys.map((key) => key.id));
  await closePlanUnits(db, teamId, 'group', [groupId]);
  const result = await db.deleteFrom('synthetic_groups').where('team_id', '=', teamId).where('id', '=', groupId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function countTeamGroups(db: Db, teamId: string): Promise<number> {
  const row = await db
    .selectFrom('synthetic_groups')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('team_id', '=', teamId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function listGroupMembersWithUsers(db: Db, teamId: string, groupId: string) {
  return db
    .selectFrom('synthetic_group_members as gm')
    .innerJoin('synthetic_groups as g', 'g.id', 'gm.group_id')
    .innerJoin('users as u', 'u.id', 'gm.user_id')
    .select(['u.id', 'u.email', 'u.name', 'u.avatar', 'gm.role', 'gm.created_at as joined_at'])
    .where('g.team_id', '=', teamId)
    .where('gm.group_id', '=', groupId)
    .orderBy('gm.created_at')
    .orderBy('u.email')
    .execute();
}

/** Adds a member; false when the user already belongs to the group. */
export async function insertGroupMember(db: Db, member: { groupId: string; userId: string; role: GroupRole }): Promise<boolean> {
  const inserted = await db
    .insertInto('synthetic_group_members')
    .values({ group_id: member.groupId, user_id: member.userId, role: member.role })
    .onConflict((oc) => oc.columns(['group_id', 'user_id']).doNothing())
    .returning('user_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** The user's role in the group, held until the transaction ends; undefined when not a member. */
export async function lockGroupMemberRole(db: Db, groupId: string, userId: string): Promise<GroupRole | undefined> {
  const row = await db.selectFrom('synthetic_group_members').select('role').where('group_id', '=', groupId).where('user_id', '=', userId).forUpdate().executeTakeFirst();
  return row?.role as GroupRole | undefined;
}

export async function updateGroupMemberRole(db: Db, groupId: string, userId: string, role: GroupRole): Promise<boolean> {
  const result = await db
    .updateTable('synthetic_group_members')
    .set({ role })
    .where('group_id', '=', groupId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function deleteGroupMember(db: Db, groupId: string, userId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('synthetic_group_members')
    .where('group_id', '=', groupId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** The names of a team's synthetic groups among `ids`. */
export async function groupNames(db: Db, teamId: string, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('synthetic_groups').select(['id', 'name']).where('team_id', '=', teamId).where('id', 'in', ids).execute();
  return new Map(rows.map((row) => [row.id, row.name]));
}
