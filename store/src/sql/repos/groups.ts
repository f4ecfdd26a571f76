// Synthetic groups: usage grouped by team, product or customer. Always team-scoped.
import type { GroupRole, SyntheticGroup } from '../schema.ts';
import type { Db } from './db.ts';

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

export async function listGroupMembers(db: Db, teamId: string, groupId: string) {
  return db
    .selectFrom('synthetic_group_members as gm')
    .innerJoin('synthetic_groups as g', 'g.id', 'gm.group_id')
    .select(['gm.user_id', 'gm.role'])
    .where('g.team_id', '=', teamId)
    .where('gm.group_id', '=', groupId)
    .execute() as Promise<{ user_id: string; role: GroupRole }[]>;
}
