// Spend alerts: a team's channels (e-mail addresses, a Slack or Teams webhook, SMS through
// the team's Twilio account; secrets sealed with the team's data key), the alerts that
// fired (one row per team and dedupe key: a threshold fires once per budget window), one
// delivery per (alert, channel) — its idempotency key — and every attempt at it.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('alert_channels')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('email', 'slack', 'teams', 'sms')`))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('settings', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('secret_ciphertext', 'bytea')
    .addColumn('secret_key_version', 'integer')
    .addColumn('created_by', 'uuid', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('alert_channels_team_idx').on('alert_channels').columns(['team_id', 'created_at']).execute();

  await db.schema
    .createTable('alert_events')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('threshold', 'test')`))
    .addColumn('dedupe_key', 'text', (c) => c.notNull())
    .addColumn('budget_id', 'uuid', (c) => c.references('budgets.id').onDelete('set null'))
    .addColumn('threshold_percent', 'integer')
    .addColumn('window_label', 'text')
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('details', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('alert_events_once', ['team_id', 'dedupe_key'])
    .execute();
  await db.schema.createIndex('alert_events_team_recent_idx').on('alert_events').columns(['team_id', 'created_at desc']).execute();

  await db.schema
    .createTable('alert_deliveries')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('alert_id', 'uuid', (c) => c.notNull().references('alert_events.id').onDelete('cascade'))
    .addColumn('channel_id', 'uuid', (c) => c.references('alert_channels.id').onDelete('set null'))
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('channel_kind', 'text', (c) => c.notNull())
    .addColumn('channel_name', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending').check(sql`status in ('pending', 'retrying', 'sent', 'logged', 'failed')`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('claimed_until', 'timestamptz')
    .addColumn('last_error', 'text')
    .addColumn('sent_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('alert_deliveries_alert_idx').on('alert_deliveries').column('alert_id').execute();

  await db.schema
    .createTable('alert_delivery_attempts')
    .addColumn('delivery_id', 'uuid', (c) => c.notNull().references('alert_deliveries.id').onDelete('cascade'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull().check(sql`outcome in ('sent', 'logged', 'failed')`))
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addPrimaryKeyConstraint('alert_delivery_attempts_pk', ['delivery_id', 'attempt'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('alert_delivery_attempts').execute();
  await db.schema.dropTable('alert_deliveries').execute();
  await db.schema.dropTable('alert_events').execute();
  await db.schema.dropTable('alert_channels').execute();
}
