// Compliance readiness: a team's access review (every member's team role and each synthetic
// group role they hold, when they joined, when they last signed in), the sign-in that review
// reads, and a team's own retention of raw usage events and GPU samples with the pruning
// that honours it (the deployment's default first for everyone, then each shorter team's).
import type { Db } from './db.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Notes a sign-in: a session was issued to the account. */
export async function recordSignIn(db: Db, userId: string, at: Date): Promise<void> {
  await db.updateTable('users').set({ last_signed_in_at: at }).where('id', '=', userId).execute();
}

/** Who holds which role in the team and its groups: one row per membership, the team's first, by e-mail. */
export async function accessReviewRows(db: Db, teamId: string) {
  const [teamRows, groupRows] = await Promise.all([
    db
      .selectFrom('team_members as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select(['u.id as userId', 'u.email', 'u.name', 'm.role', 'm.created_at as joinedAt', 'u.last_signed_in_at as lastSignedInAt'])
      .where('m.team_id', '=', teamId)
      .orderBy('u.email')
      .execute(),
    db
      .selectFrom('synthetic_group_members as m')
      .innerJoin('synthetic_groups as g', 'g.id', 'm.group_id')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select(['u.id as userId', 'u.email', 'u.name', 'g.id as groupId', 'g.name as groupName', 'm.role', 'm.created_at as joinedAt', 'u.last_signed_in_at as lastSignedInAt'])
      .where('g.team_id', '=', teamId)
      .orderBy('u.email')
      .orderBy('g.name')
      .orderBy('g.id')
      .execute(),
  ]);
  return { teamRows, groupRows };
}

export async function findTeamRetention(db: Db, teamId: string) {
  return db.selectFrom('team_retention').selectAll().where('team_id', '=', teamId).executeTakeFirst();
}

export async function upsertTeamRetention(db: Db, teamId: string, values: { usage_event_days: number | null; gpu_sample_hours: number | null }, userId: string) {
  const set = { ...values, updated_by: userId, updated_at: new Date() };
  await db
    .insertInto('team_retention')
    .values({ team_id: teamId, ...set })
    .onConflict((conflict) => conflict.column('team_id').doUpdateSet(set))
    .execute();
}

/** The fewest days any of `teamIds` keeps its raw usage events (`defaultDays` for a team without its own). */
export async function shortestUsageEventRetentionDays(db: Db, teamIds: readonly string[], defaultDays: number): Promise<number> {
  if (teamIds.length === 0) return defaultDays;
  const rows = await db.selectFrom('team_retention').select('usage_event_days').where('team_id', 'in', teamIds).where('usage_event_days', 'is not', null).execute();
  return Math.min(defaultDays, ...rows.map((row) => row.usage_event_days!));
}

/**
 * Deletes usage events older than their team's retention (`defaultDays` unless the team keeps
 * them fewer; their rollups stay, and their request ids stay claimed, so a very late
 * redelivery is still counted once). Returns how many went.
 */
export async function deleteUsageEventsPastRetention(db: Db, at: Date, defaultDays: number): Promise<number> {
  let deleted = Number((await db.deleteFrom('usage_events').where('occurred_at', '<', new Date(at.getTime() - defaultDays * DAY_MS)).executeTakeFirst()).numDeletedRows);
  const shorter = await db.selectFrom('team_retention').select(['team_id', 'usage_event_days']).where('usage_event_days', '<', defaultDays).execute();
  for (const team of shorter) {
    const before = new Date(at.getTime() - team.usage_event_days! * DAY_MS);
    deleted += Number((await db.deleteFrom('usage_events').where('team_id', '=', team.team_id).where('occurred_at', '<', before).executeTakeFirst()).numDeletedRows);
  }
  return deleted;
}

/** Deletes raw GPU samples older than their team's retention (`defaultHours` unless the team keeps them fewer). */
export async function deleteGpuSamplesPastRetention(db: Db, at: Date, defaultHours: number): Promise<number> {
  let deleted = Number((await db.deleteFrom('gpu_samples').where('at', '<', new Date(at.getTime() - defaultHours * HOUR_MS)).executeTakeFirst()).numDeletedRows);
  const shorter = await db.selectFrom('team_retention').select(['team_id', 'gpu_sample_hours']).where('gpu_sample_hours', '<', defaultHours).execute();
  for (const team of shorter) {
    const before = new Date(at.getTime() - team.gpu_sample_hours! * HOUR_MS);
    const devices = db.selectFrom('gpu_devices').select('id').where('team_id', '=', team.team_id);
    deleted += Number((await db.deleteFrom('gpu_samples').where('gpu_id', 'in', devices).where('at', '<', before).executeTakeFirst()).numDeletedRows);
  }
  return deleted;
}
