// Issued keys: stored as a SHA-256 hash plus a short visible prefix, never in plaintext.
import type { KeySettings } from '@spendgate/core';
import type { IssuedKey } from '../schema.ts';
import type { Db } from './db.ts';

export async function insertIssuedKey(
  db: Db,
  key: Omit<IssuedKey, 'created_at' | 'revoked_at' | 'settings'> & { settings?: KeySettings },
): Promise<IssuedKey> {
  return db
    .insertInto('issued_keys')
    .values({ ...key, settings: JSON.stringify(key.settings ?? {}) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Renames a live key or replaces its settings; undefined when there is no such key. */
export async function updateIssuedKey(db: Db, teamId: string, keyId: string, changes: { name?: string; settings?: KeySettings }) {
  return db
    .updateTable('issued_keys')
    .set({
      ...(changes.name !== undefined && { name: changes.name }),
      ...(changes.settings !== undefined && { settings: JSON.stringify(changes.settings) }),
    })
    .where('team_id', '=', teamId)
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Everything the data plane needs to serve a request made with a key: the key, its
 * group and team, the team's plan, and its connection (secret still encrypted).
 * Undefined when the key is unknown or revoked.
 */
export async function findKeyPrincipal(db: Db, keyHash: string) {
  return db
    .selectFrom('issued_keys as k')
    .leftJoin('provider_connections as c', (join) =>
      join.onRef('c.id', '=', 'k.connection_id').onRef('c.team_id', '=', 'k.team_id'),
    )
    .leftJoin('team_data_keys as dk', 'dk.team_id', 'k.team_id')
    .innerJoin('teams as t', 't.id', 'k.team_id')
    // A team is on its owner's plan.
    .leftJoin('subscriptions as s', 's.user_id', 't.created_by')
    .select([
      'k.id as keyId',
      'k.team_id as teamId',
      'k.group_id as groupId',
      'k.kind',
      'k.connection_id as connectionId',
      'k.settings',
      'c.provider',
      'c.base_url as baseUrl',
      'c.status as connectionStatus',
      'c.secret_ciphertext as secretCiphertext',
      'c.secret_key_version as secretKeyVersion',
      'c.options as connectionOptions',
      'dk.wrapped_key as wrappedDataKey',
      's.plan_slug as planSlug',
      't.allow_unpriced_models as allowUnpricedModels',
      't.time_zone as timeZone',
    ])
    .where('k.key_hash', '=', keyHash)
    .where('k.revoked_at', 'is', null)
    .executeTakeFirst();
}

export type KeyPrincipalRow = NonNullable<Awaited<ReturnType<typeof findKeyPrincipal>>>;
