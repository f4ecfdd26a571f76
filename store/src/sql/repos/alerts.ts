// Spend alerts: a team's channels, the alerts that fired (unique per team and dedupe key,
// which makes each fire once however many checks race), one delivery per (alert, channel)
// and each attempt at it. A delivery is claimed before it is sent, so two runs of its job
// never send it twice.
import { randomUUID } from 'node:crypto';
import type { Insertable } from 'kysely';
import { sql } from 'kysely';
import type { AlertChannelsTable, AlertDeliveryStatus, AlertEventsTable, ForecastDayRow } from '../schema.ts';
import type { Db } from './db.ts';

/** Where a channel's secret is bound when sealed with the team's data key (beside connections' ids, never equal to one). */
export const alertChannelSecretScope = (teamId: string, channelId: string, version: number) => ({ teamId, connectionId: `alert-channel:${channelId}`, version });

export async function insertAlertChannel(db: Db, channel: Insertable<AlertChannelsTable>) {
  return db.insertInto('alert_channels').values(channel).returningAll().executeTakeFirstOrThrow();
}

export async function listAlertChannels(db: Db, teamId: string) {
  return db.selectFrom('alert_channels').selectAll().where('team_id', '=', teamId).orderBy('created_at').orderBy('id').execute();
}

export async function findAlertChannel(db: Db, teamId: string, id: string) {
  return db.selectFrom('alert_channels').selectAll().where('team_id', '=', teamId).where('id', '=', id).executeTakeFirst();
}

export async function deleteAlertChannel(db: Db, teamId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('alert_channels').where('team_id', '=', teamId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Budgets with what each covers named (the group's, key's or team's name) and the team's zone. */
const budgetsWithScopeNames = (db: Db) =>
  db
    .selectFrom('budgets as b')
    .innerJoin('teams as t', 't.id', 'b.team_id')
    .leftJoin('synthetic_groups as g', (join) => join.onRef('g.id', '=', 'b.scope_id').on('b.scope', '=', 'group'))
    .leftJoin('issued_keys as k', (join) => join.onRef('k.id', '=', 'b.scope_id').on('b.scope', '=', 'key'))
    .select([
      'b.id',
      'b.team_id',
      'b.scope',
      'b.scope_id',
      'b.amount_micros',
      'b.window',
      'b.mode',
      'b.alert_at',
      't.time_zone',
      sql<string>`coalesce(g.name, k.name, t.name)`.as('scope_name'),
    ]);

/** Every budget with alert thresholds, of teams that are not demo teams, with what it covers named. */
export async function listBudgetsWithAlerts(db: Db) {
  return budgetsWithScopeNames(db).where('t.is_demo', '=', false).where(sql<boolean>`jsonb_array_length(b.alert_at) > 0`).orderBy('b.id').execute();
}

/** A team's budgets, oldest first, with what each covers named. */
export async function listTeamBudgetsNamed(db: Db, teamId: string) {
  return budgetsWithScopeNames(db).where('b.team_id', '=', teamId).orderBy('b.created_at').orderBy('b.id').execute();
}

/** The thresholds of a budget that already fired in one window. */
export async function firedThresholds(db: Db, budgetId: string, windowLabel: string): Promise<number[]> {
  const rows = await db
    .selectFrom('alert_events')
    .select('threshold_percent')
    .where('budget_id', '=', budgetId)
    .where('window_label', '=', windowLabel)
    .where('kind', '=', 'threshold')
    .execute();
  return rows.map((row) => row.threshold_percent!);
}

/** Whether a team already has the alert with this dedupe key (a cheap look before working one out). */
export async function alertRecorded(db: Db, teamId: string, dedupeKey: string): Promise<boolean> {
  const row = await db.selectFrom('alert_events').select('id').where('team_id', '=', teamId).where('dedupe_key', '=', dedupeKey).executeTakeFirst();
  return row !== undefined;
}

/** The stored forecasts (team and group scopes) of teams that are not demo teams, with the team's time zone and the scope's name. */
export async function listForecastsForAlerts(db: Db, periods: readonly string[]) {
  if (periods.length === 0) return [];
  const rows = await db
    .selectFrom('spend_forecasts as f')
    .innerJoin('teams as t', 't.id', 'f.team_id')
    .leftJoin('synthetic_groups as g', 'g.id', 'f.group_id')
    .select(['f.scope_id', 'f.team_id', 'f.group_id', 'f.period', 'f.days', 't.time_zone', sql<string>`coalesce(g.name, t.name)`.as('scope_name')])
    .where('t.is_demo', '=', false)
    .where('f.period', 'in', [...periods])
    .orderBy('f.scope_id')
    .orderBy('f.period')
    .execute();
  return rows.map((row) => ({ ...row, days: typeof row.days === 'string' ? (JSON.parse(row.days) as ForecastDayRow[]) : row.days }));
}

/** Who spent without a key, as a spike names it: the AI advisor's wording (a team's own usage). */
const ADVISOR_WORDING_SPENDER = 'AI advisor wording';

/** Budget spend (GBP micros) per key and model of a team, or one of its groups, over the day or hour rollups in [from, to). */
export async function spendByKeyAndModel(db: Db, scope: { teamId: string; groupId: string | null; from: Date; to: Date; grain: 'hour' | 'day' }) {
  let query = db
    .selectFrom('usage_rollups as r')
    .leftJoin('issued_keys as k', 'k.id', 'r.key_id')
    .select(['r.key_id', sql<string>`coalesce(k.name, r.key_id::text, ${ADVISOR_WORDING_SPENDER})`.as('key_name'), 'r.model', sql<string>`sum(r.budget_spend_micros)::text`.as('micros')])
    .where('r.team_id', '=', scope.teamId)
    .where('r.grain', '=', scope.grain)
    .where('r.bucket_start', '>=', scope.from)
    .where('r.bucket_start', '<', scope.to);
  if (scope.groupId !== null) query = query.where('r.group_id', '=', scope.groupId);
  const rows = await query.groupBy(['r.key_id', 'k.name', 'r.model']).execute();
  return rows.map((row) => ({ keyId: row.key_id, keyName: row.key_name, model: row.model, micros: BigInt(row.micros) }));
}

/**
 * The budget spend (GBP micros) of each team and each group, per UTC hour in [from, to), where
 * it is at least `atLeastMicros` (the hourly rollups), of teams that are not demo teams and
 * groups that still exist, with the team's time zone and the scope's name; group_id null for
 * the team's own total.
 */
export async function hourlySpendByScope(db: Db, window: { from: Date; to: Date; atLeastMicros: bigint }) {
  const { rows } = await sql<{ team_id: string; group_id: string | null; hour_start: Date | string; micros: string; time_zone: string; scope_name: string }>`
    with hours as (
      select r.team_id, r.group_id, r.bucket_start as hour_start, sum(r.budget_spend_micros) as micros
      from usage_rollups r
      where r.grain = 'hour' and r.bucket_start >= ${window.from} and r.bucket_start < ${window.to}
      group by grouping sets ((r.team_id, r.bucket_start), (r.team_id, r.group_id, r.bucket_start))
      -- A team's calls without a group (the advisor's wording) count in its total only.
      having grouping(r.group_id) = 1 or r.group_id is not null
    )
    select h.team_id, h.group_id, h.hour_start, h.micros::text as micros, t.time_zone, coalesce(g.name, t.name) as scope_name
    from hours h join teams t on t.id = h.team_id left join synthetic_groups g on g.id = h.group_id
    where not t.is_demo and (h.group_id is null or g.id is not null) and h.micros >= ${window.atLeastMicros}
    order by h.team_id, h.group_id nulls first, h.hour_start`.execute(db);
  return rows.map((row) => ({ ...row, hour_start: new Date(row.hour_start), micros: BigInt(row.micros) }));
}

export interface AlertChannelRef {
  id: string;
  kind: AlertChannelsTable['kind'];
  name: string;
}

/**
 * Records an alert and a delivery to each channel, in one transaction — unless an alert
 * with the same team and dedupe key exists, then nothing (undefined). The deliveries' ids,
 * for their jobs once this has committed.
 */
export async function recordAlert(
  db: Db,
  alert: Omit<Insertable<AlertEventsTable>, 'id' | 'details'> & { details: Record<string, unknown> },
  channels: readonly AlertChannelRef[],
): Promise<{ alertId: string; deliveryIds: string[] } | undefined> {
  const write = async (trx: Db) => {
    const inserted = await trx
      .insertInto('alert_events')
      .values({ ...alert, id: randomUUID(), details: JSON.stringify(alert.details) })
      .onConflict((conflict) => conflict.columns(['team_id', 'dedupe_key']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!inserted) return undefined;
    const deliveries = channels.map((channel) => ({
      id: randomUUID(),
      alert_id: inserted.id,
      channel_id: channel.id,
      team_id: alert.team_id,
      channel_kind: channel.kind,
      channel_name: channel.name,
      idempotency_key: `${inserted.id}:${channel.id}`,
    }));
    if (deliveries.length > 0) await trx.insertInto('alert_deliveries').values(deliveries).execute();
    return { alertId: inserted.id, deliveryIds: deliveries.map((delivery) => delivery.id) };
  };
  return db.isTransaction ? write(db) : db.transaction().execute(write);
}

/**
 * Takes a delivery for one attempt: counts the attempt and holds it for `leaseMs`, unless it
 * is done (sent, logged, failed) or another run holds it. The delivery with its alert's text
 * and its channel (null once the channel is deleted), or undefined.
 */
export async function claimAlertDelivery(db: Db, id: string, now: Date, leaseMs: number) {
  const claimed = await db
    .updateTable('alert_deliveries')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), claimed_until: new Date(now.getTime() + leaseMs) }))
    .where('id', '=', id)
    .where('status', 'in', ['pending', 'retrying'])
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
    .returning(['id', 'alert_id', 'channel_id', 'team_id', 'attempts', 'idempotency_key'])
    .executeTakeFirst();
  if (!claimed) return undefined;
  const alert = await db.selectFrom('alert_events').select(['subject', 'message']).where('id', '=', claimed.alert_id).executeTakeFirstOrThrow();
  const channel = claimed.channel_id
    ? ((await db.selectFrom('alert_channels').selectAll().where('id', '=', claimed.channel_id).executeTakeFirst()) ?? null)
    : null;
  return { ...claimed, alert, channel };
}

/** A delivery's status, or undefined when there is no such delivery. */
export async function findAlertDeliveryStatus(db: Db, id: string) {
  return (await db.selectFrom('alert_deliveries').select('status').where('id', '=', id).executeTakeFirst())?.status;
}

/** Records one attempt's outcome and sets the delivery's status (the lease is let go). */
export async function recordAlertAttempt(
  db: Db,
  attempt: { deliveryId: string; attempt: number; at: Date; status: Exclude<AlertDeliveryStatus, 'pending'>; statusCode?: number | undefined; error?: string | undefined },
): Promise<void> {
  const write = async (trx: Db) => {
    await trx
      .insertInto('alert_delivery_attempts')
      .values({
        delivery_id: attempt.deliveryId,
        attempt: attempt.attempt,
        at: attempt.at,
        outcome: attempt.status === 'retrying' ? 'failed' : attempt.status,
        status_code: attempt.statusCode ?? null,
        error: attempt.error ?? null,
      })
      .execute();
    await trx
      .updateTable('alert_deliveries')
      .set({
        status: attempt.status,
        claimed_until: null,
        last_error: attempt.error ?? null,
        ...(attempt.status === 'sent' || attempt.status === 'logged' ? { sent_at: attempt.at } : {}),
      })
      .where('id', '=', attempt.deliveryId)
      .execute();
  };
  await (db.isTransaction ? write(db) : db.transaction().execute(write));
}

/** A team's newest alerts, each with its deliveries and their attempts. */
export async function listAlertHistory(db: Db, teamId: string, limit: number) {
  const alerts = await db.selectFrom('alert_events').selectAll().where('team_id', '=', teamId).orderBy('created_at', 'desc').orderBy('id').limit(limit).execute();
  if (alerts.length === 0) return [];
  const deliveries = await db
    .selectFrom('alert_deliveries')
    .selectAll()
    .where('alert_id', 'in', alerts.map((alert) => alert.id))
    .orderBy('created_at')
    .orderBy('channel_name')
    .execute();
  const attempts =
    deliveries.length === 0
      ? []
      : await db
          .selectFrom('alert_delivery_attempts')
          .selectAll()
          .where('delivery_id', 'in', deliveries.map((delivery) => delivery.id))
          .orderBy('attempt')
          .execute();
  return alerts.map((alert) => ({
    ...alert,
    deliveries: deliveries
      .filter((delivery) => delivery.alert_id === alert.id)
      .map((delivery) => ({ ...delivery, attempts: attempts.filter((attempt) => attempt.delivery_id === delivery.id) })),
  }));
}
