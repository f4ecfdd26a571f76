// Issued keys: stored as a SHA-256 hash plus a short visible prefix, never in plaintext;
// listed by group, revoked and counted per plan as the console manages them.
import type { KeySettings } from '@spendgate/core';
import { sql } from 'kysely';
import type { IssuedKey, KeyKind } from '../schema.ts';
import type { Db } from './db.ts';
import { closePlanUnits, openPlanUnit } from './plan-units.ts';
import { hasPaymentMethodOn } from './plans.ts';

export async function insertIssuedKey(
  db: Db,
  key: Omit<IssuedKey, 'created_at' | 'revoked_at' | 'settings'> & { settings?: KeySettings },
): Promise<IssuedKey> {
  const row = await db
    .insertInto('issued_keys')
    .values({ ...key, settings: JSON.stringify(key.settings ?? {}) })
    .returningAll()
    .executeTakeFirstOrThrow();
  // Optimised keys count against the plan's allowance.
  if (row.kind === 'optimised') await openPlanUnit(db, { teamId: row.team_id, kind: 'key', targetId: row.id, at: row.created_at });
  return row;
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

/** A live key's name and settings, its row locked until the transaction ends (a change merged into them is not lost to another, and its audit entry says what they were); undefined when there is no such key. */
export async function lockKey(db: Db, teamId: string, keyId: string): Promise<{ name: string; settings: KeySettings } | undefined> {
  return db
    .selectFrom('issued_keys')
    .select(['name', 'settings'])
    .where('team_id', '=', teamId)
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * Everything the data plane needs to serve a request made with a key: the key, its
 * group and team, the team's plan and subscription state (status, trial end, whether a
 * payment method is on file), and its connection (secret still encrypted).
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
    // Capture runs where the team and the key's group both opted in.
    .leftJoin('team_capture_settings as tcs', 'tcs.team_id', 'k.team_id')
    .leftJoin('group_capture_settings as gcs', 'gcs.group_id', 'k.group_id')
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
      'dk.key_version as dataKeyVersion',
      's.plan_slug as planSlug',
      's.status as subscriptionStatus',
      's.trial_end as trialEnd',
      hasPaymentMethodOn('s.id').as('hasPaymentMethod'),
      'tcs.enabled as teamCaptures',
      'gcs.enabled as groupCaptures',
      'tcs.retention_days as captureRetentionDays',
      'tcs.redaction_patterns as captureRedactionPatterns',
      't.allow_unpriced_models as allowUnpricedModels',
      't.time_zone as timeZone',
      't.is_demo as isDemo',
    ])
    .where('k.key_hash', '=', keyHash)
    .where('k.revoked_at', 'is', null)
    .executeTakeFirst();
}

export type KeyPrincipalRow = NonNullable<Awaited<ReturnType<typeof findKeyPrincipal>>>;

/** A group's live keys, each with when it last served a request (its newest usage event; null: never). */
export async function listGroupKeys(db: Db, teamId: string, groupId: string) {
  const keys = await db
    .selectFrom('issued_keys')
    .select(['id', 'group_id', 'connection_id', 'kind', 'name', 'key_prefix', 'settings', 'created_at'])
    .select((eb) =>
      eb
        .selectFrom('usage_events')
        .select((events) => events.fn.max('usage_events.occurred_at').as('occurred_at'))
        .whereRef('usage_events.team_id', '=', 'issued_keys.team_id')
        .whereRef('usage_events.key_id', '=', 'issued_keys.id')
        .as('last_used_at'),
    )
    .where('team_id', '=', teamId)
    .where('group_id', '=', groupId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at')
    .execute();
  return keys.map(({ last_used_at, ...key }) => ({ ...key, last_used_at: last_used_at === null ? null : new Date(last_used_at) }));
}

/** A live key by id, only if it belongs to one of the user's teams, with the user's roles. */
export async function findKeyForUser(db: Db, keyId: string, userId: string) {
  return db
    .selectFrom('issued_keys as k')
    .innerJoin('team_members as tm', (join) => join.onRef('tm.team_id', '=', 'k.team_id').on('tm.user_id', '=', userId))
    .leftJoin('synthetic_group_members as gm', (join) => join.onRef('gm.group_id', '=', 'k.group_id').on('gm.user_id', '=', userId))
    .select(['k.id', 'k.team_id', 'k.group_id', 'k.kind', 'k.connection_id', 'k.key_hash', 'tm.role as teamRole', 'gm.role as groupRole'])
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
  await closePlanUnits(db, teamId, 'key', [keyId], at);
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

/** A team's live keys (to drop them from the key cache), or those of one group, or those that reach one connection (bound to it, or a model override through it). */
export async function listLiveKeys(db: Db, teamId: string, scope: { groupId?: string; connectionId?: string }) {
  let query = db.selectFrom('issued_keys').select(['id', 'key_hash']).where('team_id', '=', teamId).where('revoked_at', 'is', null);
  if (scope.groupId) query = query.where('group_id', '=', scope.groupId);
  const { connectionId } = scope;
  if (connectionId) {
    const overridden = JSON.stringify({ modelOverrides: [{ connectionId }] });
    query = query.where((eb) => eb.or([eb('connection_id', '=', connectionId), sql<boolean>`settings @> ${overridden}::jsonb`]));
  }
  return query.execute();
}

/** The live keys of every team an account created (whose subscription pays for them), to drop them from the key cache. */
export async function listAccountKeys(db: Db, userId: string) {
  return db
    .selectFrom('issued_keys as k')
    .innerJoin('teams as t', 't.id', 'k.team_id')
    .select(['k.id', 'k.key_hash'])
    .where('t.created_by', '=', userId)
    .where('k.revoked_at', 'is', null)
    .execute();
}

/**
 * Drops every live key of the teams an account created from the key caches (`invalidate`:
 * a gateway's cache, or the stores' `invalidateKey` from the worker), so a change of the
 * subscription that pays for them (a card, a plan, a status) applies at their next request.
 */
export async function invalidateAccountKeys(db: Db, invalidate: (keyHash: string) => Promise<void>, userId: string): Promise<void> {
  for (const key of await listAccountKeys(db, userId)) await invalidate(key.key_hash);
}
