// Provider connections and the per-team data keys that encrypt their secrets.
// The repository stores and returns ciphertext only; encryption lives in the gateway.
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
