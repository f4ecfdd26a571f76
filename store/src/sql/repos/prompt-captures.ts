// Prompt capture: each team's and group's capture settings and the captured exchanges,
// stored sealed (the repository never sees plaintext: sealing is store/src/secrets, done
// by the gateway before a row is written).
import type { Insertable } from 'kysely';
import { sql } from 'kysely';
import type { PromptCapturesTable } from '../schema.ts';
import type { Db } from './db.ts';

export type NewPromptCapture = Insertable<PromptCapturesTable>;

/** A team's capture settings (undefined: never set, so off) and those of its groups. */
export async function findCaptureSettings(db: Db, teamId: string) {
  const [team, groups] = await Promise.all([
    db.selectFrom('team_capture_settings').selectAll().where('team_id', '=', teamId).executeTakeFirst(),
    db.selectFrom('group_capture_settings').select(['group_id', 'enabled']).where('team_id', '=', teamId).execute(),
  ]);
  return { team, groups };
}

/**
 * Sets a team's capture settings. A shorter retention applies at once to what is kept:
 * each capture then expires at the earlier of its expiry and its time plus the new retention.
 */
export async function upsertTeamCaptureSettings(
  db: Db,
  teamId: string,
  settings: { enabled: boolean; retentionDays: number | null; effectiveRetentionDays: number; redactionPatterns: string[] },
) {
  const values = {
    enabled: settings.enabled,
    retention_days: settings.retentionDays,
    redaction_patterns: JSON.stringify(settings.redactionPatterns),
    updated_at: new Date(),
  };
  const row = await db
    .insertInto('team_capture_settings')
    .values({ team_id: teamId, ...values })
    .onConflict((oc) => oc.column('team_id').doUpdateSet(values))
    .returningAll()
    .executeTakeFirstOrThrow();
  await db
    .updateTable('prompt_captures')
    .set({ expires_at: sql<Date>`least(expires_at, captured_at + make_interval(days => ${settings.effectiveRetentionDays}))` })
    .where('team_id', '=', teamId)
    .execute();
  return row;
}

export async function upsertGroupCaptureSetting(db: Db, teamId: string, groupId: string, enabled: boolean) {
  const values = { enabled, updated_at: new Date() };
  return db
    .insertInto('group_capture_settings')
    .values({ group_id: groupId, team_id: teamId, ...values })
    .onConflict((oc) => oc.column('group_id').doUpdateSet(values))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Stores sealed captures; a request captured twice keeps its first. */
export async function insertPromptCaptures(db: Db, rows: NewPromptCapture[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('prompt_captures').values(rows).onConflict((oc) => oc.column('request_id').doNothing()).execute();
}

/** A team's capture of one request, unless it has expired. */
export async function findPromptCapture(db: Db, teamId: string, requestId: string, at: Date) {
  return db
    .selectFrom('prompt_captures')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('request_id', '=', requestId)
    .where('expires_at', '>', at)
    .executeTakeFirst();
}

/** Deletes the captures expired by `at`; returns how many went. */
export async function deleteExpiredPromptCaptures(db: Db, at: Date): Promise<number> {
  const { numDeletedRows } = await db.deleteFrom('prompt_captures').where('expires_at', '<=', at).executeTakeFirst();
  return Number(numDeletedRows);
}
