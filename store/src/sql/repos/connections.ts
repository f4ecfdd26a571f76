// Provider connections and the per-team data keys that encrypt their secrets. The
// repository stores and returns ciphertext only (encryption: store/src/secrets); what the
// console lists is the visible columns, never the secret's ciphertext.
import type { Insertable } from 'kysely';
import type { ProviderConnection, ProviderConnectionsTable } from '../schema.ts';
import type { Db } from './db.ts';

export async function insertConnection(
  db: Db,
  connection: Omit<Insertable<ProviderConnectionsTable>, 'created_at' | 'status'>,
): Promise<ProviderConnection> {
  return db.insertInto('provider_connections').values(connection).returningAll().executeTakeFirstOrThrow();
}

export async function findConnection(db: Db, teamId: string, id: string): Promise<ProviderConnection | undefined> {
  return db
    .selectFrom('provider_connections')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Some of a team's connections with their sealed secrets (the data plane's reach: those a key's model overrides go through). */
export async function findConnectionsWithSecrets(db: Db, teamId: string, ids: readonly string[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('provider_connections')
    .select(['id', 'provider', 'base_url', 'status', 'secret_ciphertext', 'secret_key_version', 'options'])
    .where('team_id', '=', teamId)
    .where('id', 'in', ids)
    .execute();
}

export async function findTeamDataKey(db: Db, teamId: string) {
  return db.selectFrom('team_data_keys').selectAll().where('team_id', '=', teamId).executeTakeFirst();
}

/** Stores a team's wrapped data key unless one exists; returns the one in force. */
export async function insertTeamDataKeyIfAbsent(
  db: Db,
  key: { teamId: string; keyVersion: number; wrappedKey: Uint8Array },
) {
  await db
    .insertInto('team_data_keys')
    .values({ team_id: key.teamId, key_version: key.keyVersion, wrapped_key: key.wrappedKey })
    .onConflict((oc) => oc.column('team_id').doNothing())
    .execute();
  return (await findTeamDataKey(db, key.teamId))!;
}

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
