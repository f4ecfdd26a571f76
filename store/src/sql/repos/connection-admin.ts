// Provider connections as the console manages them. Answers never include the secret's
// ciphertext: only the columns a console may show.
import type { Db } from './db.ts';

const VISIBLE_COLUMNS = ['id', 'team_id', 'provider', 'name', 'base_url', 'secret_tail', 'status', 'options', 'created_by', 'created_at'] as const;

export async function listConnections(db: Db, teamIds: string[]) {
  if (teamIds.length === 0) return [];
  return db.selectFrom('provider_connections').select(VISIBLE_COLUMNS).where('team_id', 'in', teamIds).orderBy('created_at').execute();
}

/** A connection by id, only if it belongs to one of the user's teams, with the user's team role. */
export async function findConnectionForUser(db: Db, connectionId: string, userId: string) {
  return db
    .selectFrom('provider_connections as c')
    .innerJoin('team_members as tm', (join) => join.onRef('tm.team_id', '=', 'c.team_id').on('tm.user_id', '=', userId))
    .select(['c.id', 'c.team_id', 'c.provider', 'c.name', 'c.base_url', 'c.secret_tail', 'c.status', 'c.options', 'c.created_by', 'c.created_at', 'tm.role as teamRole'])
    .where('c.id', '=', connectionId)
    .executeTakeFirst();
}

export async function updateConnection(
  db: Db,
  teamId: string,
  id: string,
  changes: {
    name?: string;
    base_url?: string;
    status?: string;
    options?: string;
    secret_ciphertext?: Uint8Array;
    secret_key_version?: number;
    secret_tail?: string;
  },
) {
  return db
    .updateTable('provider_connections')
    .set(changes)
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .returning(VISIBLE_COLUMNS)
    .executeTakeFirst();
}

export async function deleteConnection(db: Db, teamId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('provider_connections').where('team_id', '=', teamId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
