// Issued keys as the console manages them: listed by group, revoked, counted per plan.
import type { KeyKind } from '../schema.ts';
import type { Db } from './db.ts';

export async function listGroupKeys(db: Db, teamId: string, groupId: string) {
  return db
    .selectFrom('issued_keys')
    .select(['id', 'group_id', 'connection_id', 'kind', 'name', 'key_prefix', 'settings', 'created_at'])
    .where('team_id', '=', teamId)
    .where('group_id', '=', groupId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at')
    .execute();
}

/** A live key by id, only if it belongs to one of the user's teams, with the user's roles. */
export async function findKeyForUser(db: Db, keyId: string, userId: string) {
  return db
    .selectFrom('issued_keys as k')
    .innerJoin('team_members as tm', (join) => join.onRef('tm.team_id', '=', 'k.team_id').on('tm.user_id', '=', userId))
    .leftJoin('synthetic_group_members as gm', (join) => join.onRef('gm.group_id', '=', 'k.group_id').on('gm.user_id', '=', userId))
    .select(['k.id', 'k.team_id', 'k.group_id', 'k.kind', 'k.key_hash', 'tm.role as teamRole', 'gm.role as groupRole'])
    .where('k.id', '=', keyId)
    .where('k.revoked_at', 'is', null)
    .executeTakeFirst();
}

export async function revokeKey(db: Db, teamId: string, keyId: string, at: Date): Promise<boolean> {
  const result = await db
    .updateTable('issued_keys')
    .set({ revoked_at: at })
    .where('team_id', '=', teamId)
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function countTeamKeys(db: Db, teamId: string, kind: KeyKind): Promise<number> {
  const row = await db
    .selectFrom('issued_keys')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('team_id', '=', teamId)
    .where('kind', '=', kind)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The live keys of a group or a connection (to drop them from the key cache). */
export async function listLiveKeys(db: Db, teamId: string, scope: { groupId?: string; connectionId?: string }) {
  let query = db.selectFrom('issued_keys').select(['id', 'key_hash']).where('team_id', '=', teamId).where('revoked_at', 'is', null);
  if (scope.groupId) query = query.where('group_id', '=', scope.groupId);
  if (scope.connectionId) query = query.where('connection_id', '=', scope.connectionId);
  return query.execute();
}
